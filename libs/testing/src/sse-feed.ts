import { createParser } from 'eventsource-parser';

/** One Server-Sent Events frame as a test reads it: `data` parsed as JSON, `id` as a number. */
export interface SseFrame {
  event: string;
  data: Record<string, unknown>;
  id?: number;
}

/** A feed being read: frames as they arrive, whether the server ended it, and a way to hang up. */
export interface SseFeed {
  status: number;
  contentType: string | null;
  frames: SseFrame[];
  state: { ended: boolean };
  close(): void;
}

/**
 * Opens one of the hub's Server-Sent Events feeds (`/v1/approvals/stream`, `/v1/sessions/stream`)
 * with `key` and reads its frames in the background until the server ends it or `close()`.
 */
export async function openSseFeed(url: string, key: string): Promise<SseFeed> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: ctrl.signal });
  const feed: SseFeed = { status: res.status, contentType: res.headers.get('content-type'), frames: [], state: { ended: false }, close: () => ctrl.abort() };
  if (!res.ok || !res.body) {
    feed.state.ended = true;
    await res.body?.cancel();
    return feed;
  }
  // The wire format is eventsource-parser's to read (multi-line data, comments, CRLF), not ours.
  const parser = createParser({
    onEvent: (e) =>
      feed.frames.push({
        event: e.event ?? 'message',
        data: JSON.parse(e.data) as Record<string, unknown>,
        ...(e.id === undefined ? {} : { id: Number(e.id) }),
      }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return void (feed.state.ended = true);
      parser.feed(value as string);
    }
  })();
  return feed;
}
