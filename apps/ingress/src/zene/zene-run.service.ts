import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '@hub/auth';
import { HubCommand, isDomainError, retryAfterMsOf, sessionStreamId, type DomainErrorCode, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import {
  DEFAULT_TIMEOUT_MS,
  hubSessionIdOf,
  planRun,
  rejected,
  requestIdOf,
  resultOfTurn,
  turnContextOf,
  turnKeyOf,
  usageSoFar,
  ZENE_CODE_OF_DOMAIN,
  type RunRequest,
  type ZeneResult,
} from '@hub/protocol-zene';
import { CommandService, type CommandOutcome } from '../commands/command.service';
import { SessionStreams } from '../streams/session-streams.service';
import type { RunReplies } from './reply-writer';
import { SessionWatch } from './session-watch';
import { SessionAccess } from '../auth/session-access';

/** Who asks and when: the deadline counts from when ingress received the request. */
export interface ZeneCall {
  principal: Principal;
  correlationId: string;
  receivedAt: number;
}

/** After a timeout cancel lost the race to the turn's own end, how long to wait to read that end. */
const END_GRACE_MS = 2_000;

/**
 * Runs one zene `run`: plan from the session's log (new turn, or join / replay an earlier one
 * with the same idempotency key), submit, wait up to `timeout_ms`, and on expiry cancel the
 * turn in the hub (reason `timeout`) before answering `TIMEOUT`.
 *
 * The plan comes from the watch's starting events: the committed stream (see `SessionWatch`).
 */
@Injectable()
export class ZeneRunService {
  private readonly log = new Logger('zene');

  constructor(
    private readonly commands: CommandService,
    private readonly streams: SessionStreams,
    private readonly store: EventStore,
    private readonly access: SessionAccess,
  ) {}

  async run(run: RunRequest, call: ZeneCall, replies: RunReplies): Promise<void> {
    const sessionId = hubSessionIdOf(run.session_id);
    const timeoutMs = run.timeout_ms ? Math.ceil(run.timeout_ms) : DEFAULT_TIMEOUT_MS;
    const deadline = call.receivedAt + timeoutMs;
    // A run is a submit, also when it joins a turn already asked for: a key that may not submit learns nothing of the session.
    await this.access.check(call.principal, sessionId, 'submit');
    const watch = await SessionWatch.open(this.streams, this.store, call.principal.tenantId, sessionId);
    try {
      const plan = planRun(watch.events, turnKeyOf(run), Date.now(), undefined, run.prompt);
      if (plan.kind === 'conflict')
        return replies.finish(
          rejected('INVALID_REQUEST', `request ${plan.firstRequestId} already used this request_id / idempotency_key with a different prompt; send a new one`),
        );
      if (plan.kind === 'join' && plan.ended) return replies.finish(resultOfTurn(watch.events, plan.turnId) ?? rejected('INTERNAL', 'no result'), true);
      if (plan.kind === 'join') return await this.join(plan.turnId, plan.firstRequestId, watch, deadline, replies);
      const admission = await this.submit(run, sessionId, plan.turnId, call, replies);
      // Only a repeat racing the first (both planned `start`) gets here; the first's TurnRequested is committed by now.
      if (admission === 'duplicate') return await this.join(plan.turnId, await this.firstRequestOf(call, sessionId, plan.turnId), watch, deadline, replies);
      if (admission !== 'started') return replies.finish(admission);
      replies.accepted(timeoutMs);
      replies.finish(await this.outcome(sessionId, plan.turnId, watch, deadline, call));
    } finally {
      await watch.close();
    }
  }

  /** A repeat of a running request: protocol mode says so at once, bridge mode waits for it. */
  private async join(turnId: string, firstRequestId: string, watch: SessionWatch, deadline: number, replies: RunReplies): Promise<void> {
    if (replies.mode === 'protocol') return replies.duplicateInProgress(firstRequestId);
    const ended = await watch.until(() => resultOfTurn(watch.events, turnId) !== null, deadline - Date.now());
    replies.finish(ended ? (resultOfTurn(watch.events, turnId) as ZeneResult) : { kind: 'timeout', usage: usageSoFar(watch.events, turnId) }, true);
  }

  private async submit(run: RunRequest, sessionId: string, turnId: string, call: ZeneCall, replies: RunReplies): Promise<'started' | 'duplicate' | ZeneResult> {
    const parsed = HubCommand.safeParse({
      type: 'SubmitTurn',
      sessionId,
      turnId,
      prompt: run.prompt,
      context: turnContextOf(run),
      busyPolicy: run.busy_policy ?? 'reject',
    });
    if (!parsed.success) return rejected('INVALID_REQUEST', parsed.error.issues.map((i) => i.message).join('; '));
    // A fresh command id per attempt: a BUSY answer must not stick to the key. The turn id
    // carries the idempotency (the decider appends nothing for a turn it already knows).
    const outcome = await this.dispatch(parsed.data, call, `zene:submit:${turnId}:${randomUUID()}`);
    if (!outcome.ok) {
      if ('retryAfterMs' in outcome && outcome.retryAfterMs !== undefined) replies.limited(outcome.retryAfterMs);
      return rejected(ZENE_CODE_OF_DOMAIN[outcome.code], outcome.message);
    }
    return outcome.duplicate ? 'duplicate' : 'started';
  }

  private async outcome(sessionId: string, turnId: string, watch: SessionWatch, deadline: number, call: ZeneCall): Promise<ZeneResult> {
    const result = () => resultOfTurn(watch.events, turnId);
    if (await watch.until(() => result() !== null, deadline - Date.now())) return result() as ZeneResult;
    const cancel = HubCommand.parse({ type: 'CancelTurn', sessionId, turnId, reason: 'timeout' });
    const cancelled = await this.dispatch(cancel, call, `zene:timeout:${turnId}`);
    if (!cancelled.ok) {
      // The turn ended while we cancelled it: its own end is the answer.
      this.log.warn(`timeout cancel of ${turnId} refused: ${cancelled.code} ${cancelled.message}`);
      await watch.until(() => result() !== null, END_GRACE_MS);
      const late = result();
      if (late && late.kind !== 'canceled') return late;
    }
    return { kind: 'timeout', usage: usageSoFar(watch.events, turnId) };
  }

  /** Read again, not from the watch: the first's TurnRequested is committed but may not have reached it yet. */
  private async firstRequestOf(call: ZeneCall, sessionId: string, turnId: string): Promise<string> {
    const { events } = await this.store.readStream<HubEvent>(call.principal.tenantId, sessionStreamId(sessionId));
    const event = events.find((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
    return (event && requestIdOf(event)) ?? 'unknown';
  }

  /**
   * Dispatch, with a failure to reach the worker as a rejected outcome rather than a throw. A
   * used-up tenant limit is a refusal like any other (not an error of ours) and names its wait.
   */
  private async dispatch(
    command: HubCommand,
    call: ZeneCall,
    commandId: string,
  ): Promise<CommandOutcome | { ok: false; code: DomainErrorCode; message: string; retryAfterMs?: number }> {
    try {
      return await this.commands.dispatch(command, call.principal, { protocol: 'zene', correlationId: call.correlationId, commandId });
    } catch (e) {
      if (isDomainError(e) && e.code === 'RATE_LIMITED') {
        const wait = retryAfterMsOf(e);
        return { ok: false as const, code: e.code, message: e.message, ...(wait === undefined ? {} : { retryAfterMs: wait }) };
      }
      this.log.error(`${command.type} failed: ${(e as Error).stack}`);
      return isDomainError(e)
        ? { ok: false as const, code: e.code, message: e.message }
        : { ok: false as const, code: 'INTERNAL' as const, message: 'command failed' };
    }
  }
}
