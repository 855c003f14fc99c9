import type { FeedStatus } from '../api/live-feed';

/** Whether a live feed is live, connecting, or trying again (with why). */
export function FeedBadge({ status, error }: { status: FeedStatus; error: string | null }) {
  return (
    <span className={`feed feed-${status}`} role="status">
      {status === 'live' ? 'live' : status === 'connecting' ? 'connecting…' : `reconnecting… ${error ?? ''}`}
    </span>
  );
}
