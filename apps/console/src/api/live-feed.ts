import { ApiError, type HubApi } from './client';
import { readSse } from './sse';

export type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'error';

export interface FeedHandlers {
  /**
   * The feed's item frames by `event:` name (`session`, `erased`...): each applies its frame's
   * `data` and returns its position (where a dropped feed resumes after). Other frames are ignored.
   */
  items: Readonly<Record<string, (data: unknown) => number>>;
  onStatus(status: FeedStatus, error: string | null): void;
  /** The key was refused (revoked or expired): the feed stops. */
  onUnauthenticated(message: string): void;
}

const RETRY_MS = [500, 1000, 2000, 5000];

/**
 * Follows a Server-Sent Events feed of the hub (`/v1/approvals/stream`, `/v1/sessions/stream`)
 * until `signal` aborts: `event: ready` says it is live, and a dropped stream resumes after the
 * last position seen (nothing missed, nothing refetched), backing off up to 5 s between tries.
 * A stream the hub ends for a revoked key (`event: error`, UNAUTHENTICATED) or a 401 stops it.
 */
export async function followFeed(api: HubApi, path: string, h: FeedHandlers, signal: AbortSignal): Promise<void> {
  let after: number | undefined;
  let error: string | null = null;
  let revoked: string | null = null;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const url = after === undefined ? path : `${path}?after=${after}`;
      await readSse(
        url,
        api.authHeaders(),
        (e) => {
          const item = Object.hasOwn(h.items, e.event) ? h.items[e.event] : undefined;
          if (item) after = Math.max(after ?? 0, item(JSON.parse(e.data)));
          // The hub ends a feed whose key was revoked with this frame: sign out now, not at the retry.
          if (e.event === 'error') {
            const frame = JSON.parse(e.data) as { code?: string; detail?: string };
            if (frame.code === 'UNAUTHENTICATED') revoked = frame.detail ?? 'the API key was revoked';
          }
          if (e.event === 'ready') {
            after = Math.max(after ?? 0, (JSON.parse(e.data) as { position: number }).position);
            attempt = 0;
            h.onStatus('live', null);
          }
        },
        signal,
      );
      error = null;
      if (revoked !== null) return h.onUnauthenticated(revoked);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError && e.status === 401) return h.onUnauthenticated(e.message);
      error = e instanceof Error ? e.message : String(e);
    }
    if (signal.aborted) return;
    // Ended or dropped: say so while waiting to try again.
    h.onStatus(attempt >= RETRY_MS.length ? 'error' : 'reconnecting', error);
    await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
  }
}
