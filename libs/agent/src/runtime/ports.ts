import type { EventMetadata, HubEvent, Recorded, SessionView, TurnRequested } from '@hub/domain';
import type { ScheduledTurn } from '@hub/sessions';

/** The slice of the event store the runner needs (the real one is @hub/event-store). */
export interface TurnLog {
  /** Events after `fromVersion` (exclusive; all when omitted) and the stream's version. */
  readStream(tenantId: string, streamId: string, opts?: { fromVersion?: number }): Promise<{ version: number; events: Recorded<HubEvent>[] }>;
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: number },
  ): Promise<{ nextExpectedVersion: number; events: Recorded<HubEvent>[] }>;
  /** Saves the session's view at `version` as its snapshot (absent: no snapshots). Must not throw. */
  saveView?(tenantId: string, streamId: string, version: number, view: SessionView): Promise<void>;
  /** Events appended after the last snapshot before `saveView` is called again. */
  snapshotEvery?: number;
  /** Takes the session's view as an attempt left it (which lets go of it), for the next job here. */
  keepView?(tenantId: string, streamId: string, at: { version: number; view: SessionView; sinceSaved: number }): void;
}

/** Puts follow-up work on the queue (idempotently, by key). */
export interface TurnScheduler {
  /** Run (or continue) `turnId`; `key` distinguishes a start from a resume after an approval. */
  scheduleTurn(tenantId: string, sessionId: string, turnId: string, key: string, reason: 'start' | 'resume' | 'recover'): Promise<void>;
  /** `deadlineAt` tells one deadline of an approval from another (a re-driven turn asks again). */
  scheduleApprovalExpiry(tenantId: string, sessionId: string, approvalId: string, delayMs: number, deadlineAt?: string): Promise<void>;
  /**
   * A turn has ended (completed or failed; its ending is in `events`, the session so far, or only
   * its tail after a snapshot: see `request`): what follows a turn outside its loop, e.g. scoring
   * an OpenEnv turn. `request` is the turn's request as it was when the turn ended. Must not throw.
   */
  turnEnded?(tenantId: string, sessionId: string, turnId: string, events: readonly Recorded<HubEvent>[], request?: TurnRequested['data'] | null): Promise<void>;
  /** A turn was started and scheduled here (the next queued one): watch whether it waits for a worker (ADR 0033). Must not throw. */
  turnScheduled?(turn: ScheduledTurn): void;
}

/** Lets a cancel reach the worker that is running the turn right now. */
export class RunningTurns {
  private readonly running = new Map<string, AbortController>();

  /** Turns this process runs now (the text window and the admission gate read it). */
  get size(): number {
    return this.running.size;
  }

  begin(tenantId: string, turnId: string): AbortController {
    const c = new AbortController();
    this.running.set(`${tenantId}|${turnId}`, c);
    return c;
  }

  end(tenantId: string, turnId: string, c: AbortController): void {
    if (this.running.get(`${tenantId}|${turnId}`) === c) this.running.delete(`${tenantId}|${turnId}`);
  }

  cancel(tenantId: string, turnId: string): boolean {
    const c = this.running.get(`${tenantId}|${turnId}`);
    c?.abort(new Error('turn cancelled'));
    return c !== undefined;
  }
}
