import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isDomainError } from '@hub/domain';
import type { Actor, CommandMetadata, HubCommand, Protocol } from '@hub/domain';
import { actorOf, type Principal } from '@hub/auth';
import type { CommandOutcome } from '@hub/sessions';
import { ATTR, currentTraceparent, hubMetrics, runWithCorrelation, runWithTenant, withSpan } from '@hub/telemetry';
import { KeyChanges } from '../auth/key-changes';
import { SessionAccess } from '../auth/session-access';
import { TenantLimitsService } from '../limits/tenant-limits';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { SessionDecisions } from './session-decisions';

export type { CommandOutcome } from '@hub/sessions';

export interface DispatchContext {
  protocol: Protocol;
  correlationId: string;
  /** The idempotency key: a repeat with the same id yields the first outcome. */
  commandId: string;
  extra?: Record<string, unknown>;
}

/**
 * The one way a protocol edge hands a command to the hub: checked (key, role, limits), then
 * decided here against the session's log (ADR 0025). The tenant is the principal's, never the
 * request's. A driver or network failure in any step (the key's liveness, the session's access,
 * the tenant's limits, the decision) is tried again, the decision with the same idempotency key,
 * until `HUB_COMMAND_TIMEOUT_MS` after the command arrived: then the client is told `TIMEOUT`.
 */
@Injectable()
export class CommandService {
  constructor(
    @Inject(INGRESS_CONFIG) private readonly config: IngressSettings,
    private readonly keys: KeyChanges,
    private readonly access: SessionAccess,
    private readonly limits: TenantLimitsService,
    private readonly decisions: SessionDecisions,
  ) {}

  /**
   * Opening a session outside a command (ACP `session/new`, OpenEnv `reset`, a fork, a re-drive)
   * appends too: it is held to the tenant's limits on growth (sessions, event bytes per day)
   * before anything is written. `sessionId` null: the session's id is not chosen yet (a new one).
   * `turn`: the session is opened to run turns at once (a re-drive), so the turn limits are
   * checked too (a refused first turn would leave an empty session behind).
   */
  admitNewSession(principal: Principal, sessionId: string | null, opts: { turn?: boolean } = {}): Promise<void> {
    return this.limits.openSession(principal.tenantId, sessionId, opts);
  }

  async dispatch(command: HubCommand, principal: Principal, ctx: DispatchContext): Promise<CommandOutcome> {
    // A socket authenticated once, at its upgrade: its key may have been revoked since. Checked
    // per command (from what this process verified, forgotten when any key changes), so nothing
    // is appended for a revoked key, on any protocol.
    const deadline = this.deadline();
    if (!(await this.untilDeadline(() => this.keys.verified.isLive(principal), deadline))) throw new DomainError('UNAUTHENTICATED', 'the API key was revoked');
    // The key's role, and a client key's own sessions: the same rule on every protocol. A client
    // key may open a new id; if another key opens it first, the decision checks again (whenOpened).
    const unopened = (await this.untilDeadline(() => this.access.checkCommand(principal, command), deadline)) === 'unopened';
    const whenOpened = unopened ? async () => void (await this.access.checkCommand(principal, command)) : undefined;
    return this.admitAndDecide(command, principal.tenantId, actorOf(principal), ctx, deadline, whenOpened);
  }

  /**
   * A turn a schedule starts (libs/schedules): no key to check at this moment (an operator's key
   * saved the schedule, and the schedule is the actor), and no client ownership (a schedule runs
   * on sessions of its tenant); everything after that is a submit's: the tenant's limits, the
   * decision against the session's log with the command id as idempotency key, the runTurn job.
   */
  dispatchScheduled(command: HubCommand, tenantId: string, actor: Actor, ctx: DispatchContext): Promise<CommandOutcome> {
    return this.admitAndDecide(command, tenantId, actor, ctx, this.deadline());
  }

  private async admitAndDecide(
    command: HubCommand,
    tenantId: string,
    actor: Actor,
    ctx: DispatchContext,
    deadline: number,
    whenOpened?: () => Promise<void>,
  ): Promise<CommandOutcome> {
    // An admitted turn holds its place among the tenant's running turns until it is decided.
    const release = command.type === 'SubmitTurn' ? await this.untilDeadline(() => this.limits.takeTurn(tenantId, command.sessionId), deadline) : undefined;
    const meta: CommandMetadata = {
      ...ctx.extra,
      commandId: ctx.commandId,
      tenantId,
      now: new Date().toISOString(),
      actor,
      protocol: ctx.protocol,
      correlationId: ctx.correlationId,
      ...currentTraceparent(),
    };
    const attrs = { [ATTR.TENANT_ID]: meta.tenantId, [ATTR.SESSION_ID]: command.sessionId, [ATTR.COMMAND]: command.type };
    try {
      return await runWithCorrelation(meta.correlationId, () =>
        runWithTenant(meta.tenantId, () => withSpan('command', attrs, () => this.decide(command, meta, deadline, whenOpened))),
      );
    } finally {
      await release?.();
    }
  }

  private async decide(command: HubCommand, meta: CommandMetadata, deadline: number, whenOpened?: () => Promise<void>): Promise<CommandOutcome> {
    const count = (outcome: string) => hubMetrics().commands.add(1, { protocol: meta.protocol, command: command.type, outcome });
    try {
      const outcome = await this.untilDeadline(() => this.decisions.decide(command, meta, whenOpened), deadline);
      count('decided');
      return outcome;
    } catch (e) {
      count('failed');
      throw e;
    }
  }

  private deadline(): number {
    return Date.now() + this.config.commandTimeoutMs;
  }

  /**
   * `step`, tried again while it fails with anything but a domain error (a domain error is an
   * answer; anything else is the store or the queue going away, which a repeat may get past),
   * pausing 100 ms, doubling, at most a second; TIMEOUT once `deadline` has come.
   */
  private async untilDeadline<T>(step: () => Promise<T>, deadline: number): Promise<T> {
    const budgetMs = this.config.commandTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() >= deadline) throw timedOut(budgetMs);
      try {
        return await withDeadline(step(), deadline, budgetMs);
      } catch (e) {
        if (isDomainError(e)) throw e;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 1000, Math.max(0, deadline - Date.now()))));
      }
    }
  }
}

function timedOut(budgetMs: number): DomainError {
  return new DomainError('TIMEOUT', `command not decided within ${budgetMs} ms`);
}

/**
 * `p`, or TIMEOUT at `deadline`. The decision itself goes on: it may still append, as a command
 * whose answer was lost would, and a repeat with the same id then finds its outcome.
 */
function withDeadline<T>(p: Promise<T>, deadline: number, budgetMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(budgetMs)), Math.max(0, deadline - Date.now()));
  });
  p.catch(() => undefined); // the loser of the race below is not a rejection nobody handles
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
