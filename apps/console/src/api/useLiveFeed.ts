import { HubError, type EventFeed, type FeedLink } from '@harness-hub/client';
import { useEffect, useRef, useState } from 'react';
import type { HubApi } from './client';

/** A feed of the console never gives up (it says it is reconnecting, and why): a tab stays open for hours. */
const FOLLOW = { maxFailures: Infinity, baseDelayMs: 500 } as const;

/** The hub refused the feed's key (revoked or expired: a 401, or `event: error` UNAUTHENTICATED). */
function refused(e: unknown): e is HubError {
  return e instanceof HubError && (e.status === 401 || e.code === 'UNAUTHENTICATED');
}

/**
 * Follows one of the hub's feeds while the component is mounted, with the client library's
 * EventFeed (which resumes it after the last position across drops): `items` apply each item
 * event by its name (`approval`, `session`, `erased`), `onConnected` runs when it first goes
 * live, `onUnauthenticated` when the hub refuses the key. Returns its link and why it is not live.
 */
export function useLiveFeed<T>(
  api: HubApi,
  open: 'approvals' | 'sessions',
  items: Readonly<Record<string, (data: T) => void>>,
  onUnauthenticated: (message: string) => void,
  onConnected?: () => void,
): { status: FeedLink; error: string | null } {
  const [status, setStatus] = useState<FeedLink>('connecting');
  const [error, setError] = useState<string | null>(null);
  // The latest callbacks, without restarting the feed when they change.
  const handlers = useRef({ items, onConnected });
  handlers.current = { items, onConnected };

  useEffect(() => {
    const feed = (open === 'approvals' ? api.hub.approvals.feed(FOLLOW) : api.hub.sessions.feed(FOLLOW)) as EventFeed<unknown>;
    let connected = false;
    const offEvents = feed.subscribe((e) => {
      const item = Object.hasOwn(handlers.current.items, e.event) ? handlers.current.items[e.event] : undefined;
      item?.(e.data as T);
    });
    const offLink = feed.onLink((link) => {
      setStatus(link);
      setError(feed.closeError?.message ?? null);
      if (link === 'live' && !connected) {
        connected = true;
        handlers.current.onConnected?.();
      }
      if (link === 'closed' && refused(feed.closeError)) onUnauthenticated(feed.closeError.message);
    });
    return () => {
      offEvents();
      offLink();
      feed.close();
    };
  }, [api, open, onUnauthenticated]);

  return { status, error };
}
