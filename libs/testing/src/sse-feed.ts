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
  const reader = res.body.getReader();
  let buf = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return void (feed.state.ended = true);
      buf += Buffer.from(value as Uint8Array).toString();
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        const id = /^id: (.*)$/m.exec(frame)?.[1];
        if (event && data) feed.frames.push({ event, data: JSON.parse(data) as Record<string, unknown>, ...(id === undefined ? {} : { id: Number(id) }) });
      }
    }
  })();
  return feed;
}
