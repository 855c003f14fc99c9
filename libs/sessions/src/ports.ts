import type { EventMetadata, HubEvent, Recorded, TurnRequested } from '@hub/domain';

/** The event store as the command handler uses it: read, and append with version + idempotency key. */
export interface CommandLog {
  readStream(tenantId: string, streamId: string, opts?: { fromVersion?: number }): Promise<{ version: number; events: Recorded<HubEvent>[] }>;
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: number; idempotencyKey?: string },
  ): Promise<{ events: Recorded<HubEvent>[]; duplicate: boolean }>;
}

export interface FollowUps {
  scheduleTurn(tenantId: string, sessionId: string, turnId: string, key: string, reason: 'start' | 'resume' | 'recover'): Promise<void>;
  /**
   * Schedules the deadline of an approval a command asked (an escalation, ADR 0050): the hub's
   * answer `delayMs` from now. Absent where no command can escalate (only the deadline job does).
   */
  scheduleApprovalExpiry?(tenantId: string, sessionId: string, approvalId: string, delayMs: number, deadlineAt: string): Promise<void>;
  /** Tells the worker running `turnId` to stop now (the log already says it is cancelled). */
  signalCancel(tenantId: string, turnId: string): Promise<void>;
  /**
   * A turn has ended (here: cancelled); `events` is the session so far, or its tail after a
   * snapshot; `request` is the turn's request. Must not throw.
   */
  turnEnded?(tenantId: string, sessionId: string, turnId: string, events: readonly Recorded<HubEvent>[], request?: TurnRequested['data'] | null): Promise<void>;
  /** A turn was scheduled (after `scheduleTurn` returned): the edge may watch whether it waits for a worker (ADR 0033). Must not throw. */
  turnScheduled?(turn: ScheduledTurn): void;
}

/** A turn the edge just scheduled: what `QueuedTurnWatch` needs to tell whether it waits. */
export interface ScheduledTurn {
  tenantId: string;
  sessionId: string;
  turnId: string;
  /** The scheduling key of its job (`start`, `approval:<id>`): one job, one watch, one TurnQueued. */
  key: string;
  /** The stream version the append that scheduled it left (its events end there). */
  version: number;
  /** When it was scheduled (the command's time): `TurnQueued.since`. */
  since: string;
  /** The metadata of the command that scheduled it (correlation, trace, protocol). */
  metadata: EventMetadata;
}
