import { useEffect, useRef, useState } from 'react';
import type { HubApi } from './client';
import { followFeed, type FeedStatus } from './live-feed';

/**
 * Follows one of the hub's feeds while the component is mounted (followFeed): `items` apply each
 * item frame by its event name and return its position, `onConnected` runs when it first goes
 * live. Returns its status.
 */
export function useLiveFeed(
  api: HubApi,
  path: string,
  items: Readonly<Record<string, (data: unknown) => number>>,
  onUnauthenticated: (message: string) => void,
  onConnected?: () => void,
): { status: FeedStatus; error: string | null } {
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [error, setError] = useState<string | null>(null);
  // The latest callbacks, without restarting the feed when they change.
  const handlers = useRef({ items, onConnected });
  handlers.current = { items, onConnected };
  const events = Object.keys(items).join(',');

  useEffect(() => {
    const abort = new AbortController();
    let connected = false;
    void followFeed(
      api,
      path,
      {
        items: Object.fromEntries(events.split(',').map((name) => [name, (data: unknown) => handlers.current.items[name](data)])),
        onStatus: (s, e) => {
          setStatus(s);
          setError(e);
          if (s === 'live' && !connected) {
            connected = true;
            handlers.current.onConnected?.();
          }
        },
        onUnauthenticated,
      },
      abort.signal,
    );
    return () => abort.abort();
  }, [api, path, events, onUnauthenticated]);

  return { status, error };
}
