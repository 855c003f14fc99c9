import type { FeedLink } from '@harness-hub/client';

/** Whether a live feed is live, connecting, trying again (with why), or closed (with why). */
export function FeedBadge({ status, error }: { status: FeedLink; error: string | null }) {
  return (
    <span className={`feed feed-${status}`} role="status">
      {status === 'live' ? 'live' : status === 'connecting' ? 'connecting…' : `${status === 'closed' ? 'closed' : 'reconnecting…'} ${error ?? ''}`}
    </span>
  );
}
