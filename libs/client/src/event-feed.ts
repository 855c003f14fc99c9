import { createParser } from 'eventsource-parser';
import { HubError, HubUnreachableError } from './errors';
import type { HubHttp } from './http';

/** One Server-Sent Event of a feed: its name, its data parsed as JSON, its id (a position) when it has one. */
export interface FeedEvent<T = unknown> {
  event: string;
  data: T;
  id?: number;
}

/** Where a feed is: connecting (the first time), live (the hub said `ready`), reconnecting after a drop, or closed for good. */
export type FeedLink = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface FeedOptions {
  /** Start after this position (a feed read earlier); without it the feed starts with its snapshot. */
  after?: number;
  /** Consecutive failed connections (none delivering an event) before the feed gives up; default 10 (Infinity: never). */
  maxFailures?: number;
  /** Backoff between reconnections: doubles from baseDelayMs (default 250) up to maxDelayMs (default 5000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** The hub ends a feed whose key was revoked or expired with `event: error` carrying this code. */
const UNAUTHENTICATED = 'UNAUTHENTICATED';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * A Server-Sent Events feed of the hub (`/v1/approvals/stream`, `/v1/sessions/stream`), read with
 * fetch (EventSource cannot send an Authorization header) and kept open: when the connection
 * drops or the hub ends it, it connects again with `after=` the position it had reached, so no
 * event is lost and none comes twice. The position is the last event `id`, or the one `event:
 * ready` names (a feed without a snapshot starts there); a feed started without `after` sends its
 * snapshot (each event with its own, unordered id) before `ready`, so until `ready` a dropped
 * connection starts over with the snapshot rather than resume in the middle of it. A feed the hub
 * refuses (401, 403...) or ends for a revoked key (`event: error` UNAUTHENTICATED) closes for
 * good. The wire format is eventsource-parser's to read. The one feed-resume loop of the project
 * (ADR 0046): the console's inbox and sessions list follow their feeds with it.
 */
export class EventFeed<T = unknown> {
  /** The position the next connection resumes after (undefined: from the snapshot). */
  lastId: number | undefined;
  link: FeedLink = 'connecting';
  /** Why the latest connection failed (null while it is up), and once closed why (null: by `close()`). */
  closeError: HubError | HubUnreachableError | null = null;
  /** Connections made, the first included. */
  connections = 0;
  private readonly ctrl = new AbortController();
  private listeners = new Set<(e: FeedEvent<T>) => void>();
  private linkListeners = new Set<(link: FeedLink) => void>();
  readonly done: Promise<void>;

  constructor(
    private readonly http: HubHttp,
    private readonly path: string,
    private readonly opts: FeedOptions = {},
  ) {
    this.lastId = opts.after;
    this.done = this.run().finally(() => this.setLink('closed'));
  }

  /** Hears every event (`ready` and `error` included); returns the unsubscribe. */
  subscribe(fn: (e: FeedEvent<T>) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Hears each change of `link` (with `closeError` saying why it is not live); returns the unsubscribe. */
  onLink(fn: (link: FeedLink) => void): () => void {
    this.linkListeners.add(fn);
    return () => this.linkListeners.delete(fn);
  }

  /** Resolves with the first event `pred` accepts from now on. */
  next(pred: (e: FeedEvent<T>) => boolean = () => true, timeoutMs?: number): Promise<FeedEvent<T>> {
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => (off(), reject(new HubError('timeout', `no matching event on ${this.path} within ${timeoutMs} ms`))), timeoutMs);
      const off = this.subscribe((e) => {
        if (!pred(e)) return;
        off();
        clearTimeout(timer);
        resolve(e);
      });
    });
  }

  close(): void {
    this.closeError = null;
    this.ctrl.abort();
    this.setLink('closed');
  }

  private setLink(link: FeedLink): void {
    if (this.link === link || this.link === 'closed') return;
    this.link = link;
    for (const fn of [...this.linkListeners]) fn(link);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.ctrl.signal.aborted) {
      let got = false;
      let revoked: HubError | undefined;
      // A connection without a position starts with the snapshot: its ids count only after `ready`.
      let caughtUp = this.lastId !== undefined;
      this.connections++;
      try {
        const res = await this.http.send('GET', this.path, {
          query: { after: this.lastId },
          headers: { accept: 'text/event-stream' },
          signal: this.ctrl.signal,
        });
        if (!res.body) throw new HubError('no_body', 'the feed answered without a body');
        this.closeError = null;
        const parser = createParser({
          onEvent: (e) => {
            got = true;
            const name = e.event ?? 'message';
            const data = JSON.parse(e.data) as unknown;
            const id = e.id !== undefined && e.id !== '' ? Number(e.id) : undefined;
            if (name === 'ready') {
              const position = (data as { position?: unknown }).position;
              if (typeof position === 'number') this.lastId = Math.max(this.lastId ?? 0, position);
              caughtUp = true;
            } else if (id !== undefined && caughtUp) this.lastId = Math.max(this.lastId ?? 0, id);
            if (name === 'error') {
              const frame = data as { code?: unknown; detail?: unknown };
              if (frame.code === UNAUTHENTICATED)
                revoked = new HubError(UNAUTHENTICATED, typeof frame.detail === 'string' ? frame.detail : 'the API key was revoked', { status: 401 });
            }
            const event = { event: name, data: data as T, ...(id === undefined ? {} : { id }) };
            for (const fn of [...this.listeners]) fn(event);
            if (name === 'ready') this.setLink('live');
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
        if (revoked) {
          this.closeError = revoked;
          return;
        }
      } catch (e) {
        if (this.ctrl.signal.aborted) return;
        // The hub's own refusal (a revoked key, no such feed) is final; a broken connection is not.
        if (revoked || (e instanceof HubError && e.status !== undefined && e.status < 500 && e.status !== 429)) {
          this.closeError = revoked ?? (e as HubError);
          return;
        }
        this.closeError = e instanceof HubError || e instanceof HubUnreachableError ? e : new HubUnreachableError(this.path, e);
      }
      if (this.ctrl.signal.aborted) return;
      failures = got ? 0 : failures + 1;
      if (failures >= (this.opts.maxFailures ?? 10)) return;
      this.setLink('reconnecting');
      await sleep(Math.min(this.opts.maxDelayMs ?? 5_000, (this.opts.baseDelayMs ?? 250) * 2 ** Math.max(0, failures - 1)), this.ctrl.signal);
    }
  }
}
