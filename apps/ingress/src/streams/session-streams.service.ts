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
    if (opts.after !== undefined && opts.after > head) {
      head = await this.store.headPosition(tenantId);
      if (opts.after > head) throw new DomainError('CURSOR_OUT_OF_RANGE', `cursor ${opts.after} is ahead of the log (head ${head})`);
    }
    const history = opts.history === false ? [] : await this.settledHistory(tenantId, streamId, head);
    const sub = this.subscriber.subscribe({ tenantId, streamId, after: head }, (batch) =>
      onLive(batch as Recorded<HubEvent>[]),
    );
    return { history, head, close: () => sub.close() };
  }

  private async settledHistory(tenantId: string, streamId: string, head: number): Promise<Recorded<HubEvent>[]> {
    const { events } = await this.store.readStream<HubEvent>(tenantId, streamId);
    return events.filter((e) => e.globalPosition <= head);
  }
}
