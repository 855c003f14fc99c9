import { sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import type { EventStore } from '@hub/event-store';

/** Events per read: a replay of a long session holds one page in memory, not the session. */
const SESSION_LOG_PAGE = 500;

/**
 * One session's settled events after stream position `from` and up to the global position
 * `head`, in stream order, read page by page from the log as the consumer asks for them. Nothing
 * is subscribed: the read ends at `head` even while the session goes on.
 */
export async function* sessionLogUpTo(
  store: EventStore,
  tenantId: string,
  sessionId: string,
  range: { from?: number; head: number },
  pageSize = SESSION_LOG_PAGE,
): AsyncGenerator<Recorded<HubEvent>> {
  const streamId = sessionStreamId(sessionId);
  let fromVersion = range.from ?? 0;
  for (;;) {
    const { events } = await store.readStream<HubEvent>(tenantId, streamId, { fromVersion, maxCount: pageSize });
    for (const event of events) {
      // Stream order and global order agree within a stream, so the first event past head ends it.
      if (event.globalPosition > range.head) return;
      yield event;
    }
    if (events.length < pageSize) return;
    fromVersion = events[events.length - 1].streamPosition;
  }
}
