import { Injectable } from '@nestjs/common';
import { DomainError, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore, EventSubscriber } from '@hub/event-store';

export interface SessionFeed {
  /** The session's settled history up to `head` (all of it, whatever `after` says). */
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
    opts: { after?: number } = {},
  ): Promise<SessionFeed> {
    const streamId = sessionStreamId(sessionId);
    const head = await this.store.headPosition(tenantId);
    if (opts.after !== undefined && opts.after > head) {
      throw new DomainError('CURSOR_OUT_OF_RANGE', `cursor ${opts.after} is ahead of the log (head ${head})`);
    }
    const { events } = await this.store.readStream(tenantId, streamId);
    const history = (events as Recorded<HubEvent>[]).filter((e) => e.globalPosition <= head);
    const sub = this.subscriber.subscribe({ tenantId, streamId, after: head }, (batch) =>
      onLive(batch as Recorded<HubEvent>[]),
    );
    return { history, head, close: () => sub.close() };
  }
}
