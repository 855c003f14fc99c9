import type { Actor, EventMetadata, HubEvent, Protocol, Recorded, SessionState, TurnProgress } from '@hub/domain';
import { concernsTurn, DomainError, evolveSession, evolveTurn, initialSessionState, initialTurnProgress, sessionStreamId } from '@hub/domain';
import type { TurnLog } from './ports';

/** A fold over the attempt's events, which only ever grow: each event is applied once, not once per pass. */
class CatchUpFold<S> {
  private seen = 0;
  constructor(
    private state: S,
    private readonly step: (state: S, event: HubEvent) => S,
  ) {}

  over(events: readonly HubEvent[]): S {
    for (; this.seen < events.length; this.seen++) this.state = this.step(this.state, events[this.seen] as HubEvent);
    return this.state;
  }
}

/**
 * One attempt at advancing one turn: where its stream is, the version we last saw, and the
 * metadata every event we append carries. `append` is optimistic: a conflict (someone else
 * appended — a cancel, an approval, another worker) surfaces as STREAM_VERSION_CONFLICT and the
 * runner re-reads the log and re-plans.
 */
export class TurnAttempt {
  readonly streamId: string;
  version = 0;
  events: Recorded<HubEvent>[] = [];
  private readonly sessionFold = new CatchUpFold<SessionState>(initialSessionState, evolveSession);
  private readonly turnFold: CatchUpFold<TurnProgress>;

  constructor(
    private readonly log: TurnLog,
    readonly tenantId: string,
    readonly sessionId: string,
    readonly turnId: string,
    private readonly base: { correlationId: string; causationId: string; traceparent?: string; tracestate?: string; actor: Actor },
  ) {
    this.streamId = sessionStreamId(sessionId);
    this.turnFold = new CatchUpFold(initialTurnProgress(turnId), (p, e) => (concernsTurn(e, turnId) ? evolveTurn(p, e) : p));
  }

  /** The session's decision state over the events read so far (`foldSession(events)`, kept up to date). */
  session(): SessionState {
    return this.sessionFold.over(this.events);
  }

  /** How far this attempt's turn got over the events read so far (`foldTurn(events, turnId)`, kept up to date). */
  progress(): TurnProgress {
    return this.turnFold.over(this.events);
  }

  /** Starts from a read the caller already made (its version and events), instead of reading it again. */
  seed(version: number, events: Recorded<HubEvent>[]): void {
    if (this.version !== 0 || this.events.length > 0) throw new Error('seed a turn attempt before it reads');
    this.version = version;
    this.events = [...events];
  }

  /** Reads only what was appended since we last looked: a long session is not re-read per step. */
  async reload(): Promise<void> {
    const { version, events } = await this.log.readStream(this.tenantId, this.streamId, { fromVersion: this.version });
    this.version = Math.max(this.version, version);
    const known = this.events.length ? this.events[this.events.length - 1].streamPosition : 0;
    this.events = [...this.events, ...events.filter((e) => e.streamPosition > known)];
  }

  /** The protocol the turn was requested over: its events say so too. */
  private protocol(): Protocol | undefined {
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
    return res.events;
  }
}

export function isConflict(e: unknown): boolean {
  return e instanceof DomainError && e.code === 'STREAM_VERSION_CONFLICT';
}
