import type { Actor, EventMetadata, HubEvent, Protocol, Recorded, SessionState, SessionView, TurnProgress } from '@hub/domain';
import { DomainError, evolveSessionView, initialSessionView, sessionStreamId, turnProgressOf } from '@hub/domain';
import type { TurnLog } from './ports';

/**
 * One attempt at advancing one turn: where its stream is, the version we last saw, and the
 * metadata every event we append carries. `append` is optimistic: a conflict (someone else
 * appended — a cancel, an approval, another worker) surfaces as STREAM_VERSION_CONFLICT and the
 * runner re-reads the log and re-plans.
 */
export class TurnAttempt {
  readonly streamId: string;
  version = 0;
  /** The events this attempt read or wrote: the whole stream, or the tail after the view it was seeded with. */
  events: Recorded<HubEvent>[] = [];
  /** The session view over `events` (and the snapshot before them), each event applied once. */
  private view: SessionView = initialSessionView();
  private applied = 0;
  /** Events appended since the view was last saved (see `TurnLog.saveView`). */
  private sinceSaved = 0;

  constructor(
    private readonly log: TurnLog,
    readonly tenantId: string,
    readonly sessionId: string,
    readonly turnId: string,
    private readonly base: { correlationId: string; causationId: string; traceparent?: string; tracestate?: string; actor: Actor },
  ) {
    this.streamId = sessionStreamId(sessionId);
  }

  private caughtUp(): SessionView {
    for (; this.applied < this.events.length; this.applied++) evolveSessionView(this.view, this.events[this.applied] as Recorded<HubEvent>);
    return this.view;
  }

  /** The session's decision state over the events read so far (`foldSession(events)`, kept up to date). */
  session(): SessionState {
    return this.caughtUp().session;
  }

  /** How far this attempt's turn got over the events read so far (`foldTurn(events, turnId)`, kept up to date). */
  progress(): TurnProgress {
    return turnProgressOf(this.caughtUp(), this.turnId);
  }

  /** The whole session as the model's conversation and workspace need it. */
  sessionView(): SessionView {
    return this.caughtUp();
  }

  /** The view at `version` (every event read folded in) and the events since the stored snapshot; the attempt is done with it. */
  handOver(): { version: number; view: SessionView; sinceSaved: number } {
    return { version: this.version, view: this.caughtUp(), sinceSaved: this.sinceSaved };
  }

  /** Starts from a read the caller already made (its version and events), instead of reading it again. */
  seed(version: number, events: Recorded<HubEvent>[]): void {
    if (this.version !== 0 || this.events.length > 0) throw new Error('seed a turn attempt before it reads');
    this.version = version;
    this.events = [...events];
  }

  /**
   * Starts from a session view at `version` (a snapshot with `tail`, the events read after it,
   * already folded in): the attempt never holds the stream before the snapshot.
   */
  seedView(view: SessionView, version: number, tail: Recorded<HubEvent>[], sinceSaved = tail.length): void {
    if (this.version !== 0 || this.events.length > 0) throw new Error('seed a turn attempt before it reads');
    this.view = view;
    this.version = version;
    this.events = [...tail];
    this.applied = this.events.length;
    this.sinceSaved = sinceSaved;
  }

  /** Reads only what was appended since we last looked: a long session is not re-read per step. */
  async reload(): Promise<void> {
    const { version, events } = await this.log.readStream(this.tenantId, this.streamId, { fromVersion: this.version });
    const known = this.events.length ? this.events[this.events.length - 1].streamPosition : this.version;
    const fresh = events.filter((e) => e.streamPosition > known);
    this.version = Math.max(this.version, version);
    this.events = [...this.events, ...fresh];
    this.sinceSaved += fresh.length;
  }

  /** The protocol the turn was requested over: its events say so too. */
  private protocol(): Protocol | undefined {
    const open = this.caughtUp().open[this.turnId];
    if (open?.protocol) return open.protocol;
    const req = this.events.find((e) => e.type === 'TurnRequested' && e.data.turnId === this.turnId);
    return req?.metadata.protocol;
  }

  metadata(): EventMetadata {
    const protocol = this.protocol();
    return { ...this.base, ...(protocol ? { protocol } : {}) };
  }

  async append(events: HubEvent[]): Promise<Recorded<HubEvent>[]> {
    const metadata = this.metadata();
    const res = await this.log.append(
      this.tenantId,
      this.streamId,
      events.map((e) => ({ type: e.type, data: e.data, metadata })),
      { expectedVersion: this.version },
    );
    this.version = res.nextExpectedVersion;
    this.events = [...this.events, ...res.events];
    this.sinceSaved += res.events.length;
    await this.saveViewIfDue();
    return res.events;
  }

  /**
   * Saves the view as the session's snapshot once enough events follow the last one: after the
   * append committed (outside its transaction), and best effort (a lost snapshot costs a longer
   * tail on the next read, nothing else).
   */
  private async saveViewIfDue(): Promise<void> {
    if (!this.log.saveView || this.sinceSaved < (this.log.snapshotEvery ?? Infinity)) return;
    this.sinceSaved = 0;
    await this.log.saveView(this.tenantId, this.streamId, this.version, this.caughtUp());
  }
}

export function isConflict(e: unknown): boolean {
  return e instanceof DomainError && e.code === 'STREAM_VERSION_CONFLICT';
}
