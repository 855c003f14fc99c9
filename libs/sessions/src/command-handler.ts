import { DomainError, decide, evolveSessionView, isDomainError, openRequestOf, sessionStreamId } from '@hub/domain';
import type { CommandMetadata, DomainErrorCode, EventMetadata, HubCommand, HubEvent, Recorded, SessionView, TurnRequested } from '@hub/domain';
import type { CommandLog, FollowUps } from './ports';
import { SessionViews } from './session-views';

/** What a command came to; ingress turns it into each protocol's answer. */
export type CommandOutcome =
  /** `events`: what the command appended (or, for a repeat, appended the first time), with their data. */
  { ok: true; events: { type: string; globalPosition: number; data: unknown }[]; duplicate: boolean } | { ok: false; code: DomainErrorCode; message: string };

// Commands of one session race only with each other and with that session's turn runner;
// a handful of re-reads settles any realistic burst.
const MAX_CONFLICT_RETRIES = 25;

/**
 * Decides a command against its session's stream and appends the outcome, idempotently (the
 * command id is the append's idempotency key). Then schedules what the new events call for.
 * Follow-ups are idempotent too, so a retried job that crashed after its append is safe.
 */
export class CommandHandler {
  /** Snapshot + tail reads (without snapshots: the whole stream, folded per command). */
  private readonly views: SessionViews;

  constructor(
    private readonly log: CommandLog,
    private readonly followUps: FollowUps,
    views?: SessionViews,
  ) {
    this.views = views ?? new SessionViews(log, null, Infinity);
  }

  /**
   * `whenOpened`: the command was let through because its session did not exist yet (a client
   * key may open a new id). Should it exist by the time it is decided (another command opened it
   * meanwhile), this is awaited first, once, and may refuse: a check made against "nobody's
   * session" is made again against its opener, before anything is appended to it.
   */
  async handle(command: HubCommand, meta: CommandMetadata, whenOpened?: () => Promise<void>): Promise<CommandOutcome> {
    const streamId = sessionStreamId(command.sessionId);
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const loaded = await this.views.load(meta.tenantId, streamId, 'decision');
      const { version, tail: events } = loaded;
      if (whenOpened && version > 0) {
        await whenOpened();
        whenOpened = undefined;
      }
      let decided: HubEvent[];
      try {
        decided = decide(command, loaded.view.session, meta);
      } catch (e) {
        if (isDomainError(e)) return { ok: false, code: e.code, message: e.message };
        throw e;
      }
      if (decided.length === 0) {
        const mismatch = await this.reusedWithOtherPrompt(command, meta.tenantId, streamId, loaded.view);
        return mismatch ?? { ok: true, events: [], duplicate: true };
      }
      try {
        const res = await this.log.append(
          meta.tenantId,
          streamId,
          decided.map((e) => ({ ...e, metadata: eventMetadata(meta) })),
          {
            expectedVersion: version,
            idempotencyKey: meta.commandId,
          },
        );
        if (res.duplicate) {
          const mismatch = promptMismatch(command, res.events);
          if (mismatch) return mismatch;
        }
        const requests = requestsOf(loaded.view, res.events);
        if (!res.duplicate) {
          for (const e of res.events) evolveSessionView(loaded.view, e);
          loaded.sinceSnapshot += res.events.length;
          loaded.version = res.events.at(-1)?.streamPosition ?? loaded.version;
          await this.views.saveIfDue(meta.tenantId, streamId, loaded);
          this.views.keep(meta.tenantId, streamId, loaded);
        }
        await this.followUp(meta, command.sessionId, res.events, [...events, ...res.events], requests);
        return { ok: true, events: res.events.map((e) => ({ type: e.type, globalPosition: e.globalPosition, data: e.data })), duplicate: res.duplicate };
      } catch (e) {
        if (isDomainError(e) && e.code === 'STREAM_VERSION_CONFLICT') continue;
        throw e;
      }
    }
    throw new DomainError('STREAM_VERSION_CONFLICT', `session ${command.sessionId} kept changing; gave up after ${MAX_CONFLICT_RETRIES} tries`);
  }

  /**
   * A submit the decider found nothing to do for reuses a turn id: the same prompt is a retry
   * (idempotent), another prompt is a client bug that must not vanish. An open turn's request is
   * in the view; an ended one's is read from the stream, a cost paid only by such repeats.
   */
  private async reusedWithOtherPrompt(command: HubCommand, tenantId: string, streamId: string, view: SessionView): Promise<CommandOutcome | null> {
    if (command.type !== 'SubmitTurn') return null;
    const open = openRequestOf(view, command.turnId);
    if (open) return promptMismatch(command, [{ type: 'TurnRequested', data: open }]);
    const { events } = await this.log.readStream(tenantId, streamId);
    return promptMismatch(command, events);
  }

  private async followUp(
    meta: CommandMetadata,
    sessionId: string,
    events: Recorded<HubEvent>[],
    session: Recorded<HubEvent>[],
    requests: Map<string, TurnRequested['data'] | null>,
  ): Promise<void> {
    const { tenantId } = meta;
    // What a watch of the scheduled turn needs: where the scheduling append left the stream (a
    // repeated command's original events: what the worker wrote since is then already there).
    const scheduled = (by: Recorded<HubEvent>, turnId: string, key: string) =>
      this.followUps.turnScheduled?.({
        tenantId,
        sessionId,
        turnId,
        key,
        version: events.at(-1)?.streamPosition ?? 0,
        since: by.createdAt,
        metadata: eventMetadata(meta),
      });
    for (const e of events) {
      if (e.type === 'TurnStarted') {
        await this.followUps.scheduleTurn(tenantId, sessionId, e.data.turnId, 'start', 'start');
        scheduled(e, e.data.turnId, 'start');
      }
      if (e.type === 'TurnCancelled') {
        await this.followUps.signalCancel(tenantId, e.data.turnId);
        await this.followUps.turnEnded?.(tenantId, sessionId, e.data.turnId, session, requests.get(e.data.turnId));
      }
      if (e.type === 'ApprovalRequested' && e.data.deadlineAt) {
        // An escalation's own deadline, after its append (a crash in between: the reconciler schedules it, ADR 0050).
        const { approvalId, deadlineAt } = e.data;
        await this.followUps.scheduleApprovalExpiry?.(tenantId, sessionId, approvalId, Math.max(0, Date.parse(deadlineAt) - Date.now()), deadlineAt);
      }
      if (e.type === 'ApprovalResolved') {
        const key = `approval:${e.data.approvalId}`;
        await this.followUps.scheduleTurn(tenantId, sessionId, e.data.turnId, key, 'resume');
        scheduled(e, e.data.turnId, key);
      }
    }
  }
}

/** An error when `events` hold the request of `command`'s id (turn id, or the idempotency key's turn) with another prompt. */
function promptMismatch(command: HubCommand, events: readonly HubEvent[]): CommandOutcome | null {
  if (command.type !== 'SubmitTurn') return null;
  const requests = events.filter((e): e is Extract<HubEvent, { type: 'TurnRequested' }> => e.type === 'TurnRequested');
  // Same turn id first; else (a repeated idempotency key with a new turn id) the one it recorded.
  const original = requests.find((e) => e.data.turnId === command.turnId) ?? (requests.length === 1 ? requests[0] : undefined);
  if (!original || original.data.prompt === command.prompt) return null;
  const id = original.data.turnId === command.turnId ? `turn id ${command.turnId}` : 'request id';
  return { ok: false, code: 'INVALID_COMMAND', message: `${id} was already used with a different prompt; send a new id` };
}

/** The requests of the turns `events` cancel, read before the view folds them (it then drops their context). */
function requestsOf(view: SessionView, events: readonly HubEvent[]): Map<string, TurnRequested['data'] | null> {
  const requests = new Map<string, TurnRequested['data'] | null>();
  for (const e of events) if (e.type === 'TurnCancelled') requests.set(e.data.turnId, openRequestOf(view, e.data.turnId));
  return requests;
}

/** Event metadata from command metadata: everything but what only the decider needs. */
export function eventMetadata(meta: CommandMetadata): EventMetadata {
  const { commandId, tenantId: _tenant, now: _now, ...rest } = meta;
  return { ...rest, causationId: commandId };
}
