import type { Actor, EventMetadata, HubEvent, Protocol, Recorded, SessionState, SessionView, TurnProgress } from '@hub/domain';
import { DomainError, concernsTurn, evolveSessionView, evolveTurn, initialSessionView, sessionStreamId, turnProgressOf } from '@hub/domain';
import type { TurnLog } from './ports';

/**
 * Events a step may hold back until the turn's next append (see {@link TurnAttempt.stage}): a
 * model call's progress, which changes neither the decider's state nor anything outside the
 * log, so a crash before they are written only means the call is asked again.
 */
const STAGEABLE = new Set<HubEvent['type']>(['MessageStarted', 'ModelCallStarted', 'TextDelta', 'ThoughtDelta', 'ModelCallCompleted']);

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
  /** Progress of this turn held back from the log until the next append (see {@link stage}). */
  private staged: HubEvent[] = [];
  /**
   * Whether our last read or append left us at the stream's head as far as we know. Another
   * writer may have appended since; our next append then conflicts and we read again. What we do
   * before that append is either held back (staged) or safe to repeat (a model call).
   */
  private current = false;

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

  /** How far this attempt's turn got over the events read so far and those staged (`foldTurn(events, turnId)`, kept up to date). */
  progress(): TurnProgress {
    const recorded = turnProgressOf(this.caughtUp(), this.turnId);
    return this.staged.reduce((p, e) => (concernsTurn(e, this.turnId) ? evolveTurn(p, e) : p), recorded);
  }

  /**
   * Holds a model call's progress back until the turn's next append, which writes it first: a
   * one-call turn is then one append (start, text, outcome and end) instead of four. Planning
   * sees staged events (`progress`); the session view and its decider state do not need them
   * (see STAGEABLE). A conflict or a read that finds new events drops them: they were planned
   * from a state that is no longer the stream's, and the runner plans again.
   */
  stage(events: HubEvent[]): void {
    for (const e of events) if (!STAGEABLE.has(e.type)) throw new Error(`${e.type} cannot be staged: it must be appended`);
    this.staged.push(...events);
  }

  /** Whether events wait for the next append. */
  hasStaged(): boolean {
    return this.staged.length > 0;
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
    this.current = true;
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
    this.current = true;
  }

  /**
   * Who asked for this turn (the actor on its `TurnRequested`), or null when unknown: what an
   * approval's "the requester may not approve" compares against (ADR 0048). Looked up in the
   * events this attempt holds, else read from the stream's start (rare: only such approvals ask).
   */
  async requester(): Promise<Actor | null> {
    const isRequest = (e: Recorded<HubEvent>) => e.type === 'TurnRequested' && e.data.turnId === this.turnId;
    const held = this.events.find(isRequest);
    if (held) return held.metadata.actor ?? null;
    const { events } = await this.log.readStream(this.tenantId, this.streamId, { fromVersion: 0 });
    return events.find(isRequest)?.metadata.actor ?? null;
  }

  /** Reads only what was appended since we last looked: a long session is not re-read per step. */
  async reload(): Promise<void> {
    const { version, events } = await this.log.readStream(this.tenantId, this.streamId, { fromVersion: this.version });
    const known = this.events.length ? this.events[this.events.length - 1].streamPosition : this.version;
    const fresh = events.filter((e) => e.streamPosition > known);
    this.version = Math.max(this.version, version);
    this.events = [...this.events, ...fresh];
    this.sinceSaved += fresh.length;
    if (fresh.length > 0) this.staged = [];
    this.current = true;
  }

  /**
   * Reads what was appended since we last looked, unless our own last read or append left us at
   * the head (then planning goes on from what we have; see `current`). True when it read.
   */
  async refresh(): Promise<boolean> {
    if (this.current) return false;
    await this.reload();
    return true;
  }

  /** Someone else wrote, or may have (a conflict, a cancel): the next `refresh` reads. */
  markStale(): void {
    this.current = false;
    this.staged = [];
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

  /** Appends `events` after what is staged, in one append with the version we last saw. */
  async append(events: HubEvent[]): Promise<Recorded<HubEvent>[]> {
    const metadata = this.metadata();
    const all = [...this.staged, ...events];
    this.staged = [];
    if (all.length === 0) return [];
    let res: Awaited<ReturnType<TurnLog['append']>>;
    try {
      res = await this.appendAtVersion(all, metadata);
    } catch (e) {
      // Ingress may say the turn waits for a worker (TurnQueued, ADR 0033) just as this worker
      // took it. That changes nothing planned here: the same events go after it, and the model
      // is not asked again for what it is already answering.
      if (!isConflict(e) || !(await this.onlyWaitsArrived())) throw e;
      res = await this.appendAtVersion(all, metadata);
    }
    this.current = true;
    this.version = res.nextExpectedVersion;
    this.events = [...this.events, ...res.events];
    this.sinceSaved += res.events.length;
    await this.saveViewIfDue();
    return res.events;
  }

  private async appendAtVersion(events: HubEvent[], metadata: EventMetadata): ReturnType<TurnLog['append']> {
    try {
      return await this.log.append(
        this.tenantId,
        this.streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        { expectedVersion: this.version },
      );
    } catch (e) {
      this.current = false;
      throw e;
    }
  }

  /** After a conflict: reads what was appended since, and whether it is only turns' waits for a worker. */
  private async onlyWaitsArrived(): Promise<boolean> {
    const known = this.events.length;
    await this.reload();
    const fresh = this.events.slice(known);
    return fresh.length > 0 && fresh.every((e) => e.type === 'TurnQueued');
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
