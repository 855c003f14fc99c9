import { Injectable } from '@nestjs/common';
import { DomainError, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore, EventSubscriber } from '@hub/event-store';

export interface SessionFeed {
  /** The session's settled history up to `head` (all of it, whatever `after` says); empty with `history: false`. */
  history: Recorded<HubEvent>[];
  /** Highest settled global position when the feed opened. */
  head: number;
  close(): Promise<void>;
}

/** How long a committed cursor may take to settle before it is refused; and how often to look. */
const SETTLE_WAIT_MS = 2000;
const SETTLE_POLL_MS = 15;

/**
 * History, then live events, of one session, read from the log: any ingress instance can
 * serve any session. Live delivery starts exactly after `head`, so nothing is missed or doubled
 * between the two.
 */
@Injectable()
export class SessionStreams {
  constructor(
    private readonly store: EventStore,
    private readonly subscriber: EventSubscriber,
  ) {}

  async open(
    tenantId: string,
    sessionId: string,
    onLive: (events: Recorded<HubEvent>[]) => Promise<void> | void,
    /** `history: false` skips the history read, for a caller that reads the stream itself. */
    opts: { after?: number; history?: boolean } = {},
  ): Promise<SessionFeed> {
    const streamId = sessionStreamId(sessionId);
    // Without a query for a tenant this process already follows (EventSubscriber.headPosition);
    // a cursor past it (handed out by another ingress a moment ago) is checked against the log.
    let head = await this.subscriber.headPosition(tenantId);
    if (opts.after !== undefined && opts.after > head) head = await this.settledThrough(tenantId, opts.after);
    const history = opts.history === false ? [] : await this.settledHistory(tenantId, streamId, head);
    const sub = this.subscriber.subscribe({ tenantId, streamId, after: head }, (batch) => onLive(batch as Recorded<HubEvent>[]));
    return { history, head, close: () => sub.close() };
  }

  /**
   * The settled head once it reaches `after`. A cursor past every committed event was never
   * handed out: refused at once. One that is committed but not settled yet (this hub's own
   * append a moment ago, whose position a protocol hands on at once, while an older transaction
   * still runs) is waited for, at most {@link SETTLE_WAIT_MS}: live delivery starts at the
   * settled head, so a feed opened before it would miss or double nothing, but could not start
   * from that cursor.
   */
  private async settledThrough(tenantId: string, after: number): Promise<number> {
    let head = await this.store.headPosition(tenantId);
    if (after <= head) return head;
    const committed = await this.store.committedHeadPosition(tenantId);
    const until = Date.now() + SETTLE_WAIT_MS;
    while (after <= committed && after > head && Date.now() < until) {
      await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
      head = await this.store.headPosition(tenantId);
    }
    if (after > head) throw new DomainError('CURSOR_OUT_OF_RANGE', `cursor ${after} is ahead of the log (head ${after <= committed ? head : committed})`);
    return head;
  }

  private async settledHistory(tenantId: string, streamId: string, head: number): Promise<Recorded<HubEvent>[]> {
    const { events } = await this.store.readStream<HubEvent>(tenantId, streamId);
    return events.filter((e) => e.globalPosition <= head);
  }
}
