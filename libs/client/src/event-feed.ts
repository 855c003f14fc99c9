import { createParser } from 'eventsource-parser';
import { HubError, HubUnreachableError } from './errors';
import type { HubHttp } from './http';

/** One Server-Sent Event of a feed: its name, its data parsed as JSON, its id (a position) when it has one. */
export interface FeedEvent<T = unknown> {
  event: string;
  data: T;
  id?: number;
}

export interface FeedOptions {
  /** Start after this position (a feed read earlier); without it the feed starts with its snapshot. */
  after?: number;
  /** Consecutive failed connections before the feed gives up; default 10. */
  maxFailures?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A Server-Sent Events feed of the hub (`/v1/approvals/stream`, `/v1/sessions/stream`), read with
 * fetch (EventSource cannot send an Authorization header) and kept open: when the connection
 * drops or the hub ends it, it connects again with `after=` the last id it got, so no event is
 * lost and none comes twice. The wire format is eventsource-parser's to read.
 */
export class EventFeed<T = unknown> {
  /** The last id received: where the next connection resumes. */
  lastId: number | undefined;
  closeError: HubError | HubUnreachableError | null = null;
  private readonly ctrl = new AbortController();
  private listeners = new Set<(e: FeedEvent<T>) => void>();
  readonly done: Promise<void>;

  constructor(
    private readonly http: HubHttp,
    private readonly path: string,
    private readonly opts: FeedOptions = {},
  ) {
    this.lastId = opts.after;
    this.done = this.run();
  }

  subscribe(fn: (e: FeedEvent<T>) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
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
    this.ctrl.abort();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.ctrl.signal.aborted) {
      let got = false;
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
            if (e.id !== undefined && e.id !== '') this.lastId = Number(e.id);
            const event: FeedEvent<T> = { event: e.event ?? 'message', data: JSON.parse(e.data) as T, ...(e.id ? { id: Number(e.id) } : {}) };
            for (const fn of [...this.listeners]) fn(event);
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch (e) {
        if (this.ctrl.signal.aborted) return;
        // The hub's own refusal (a revoked key, no such feed) is final; a broken connection is not.
        if (e instanceof HubError && e.status !== undefined && e.status < 500 && e.status !== 429) {
          this.closeError = e;
          return;
        }
        if (!(e instanceof HubError || e instanceof HubUnreachableError)) this.closeError = new HubUnreachableError(this.path, e);
        else this.closeError = e;
      }
      failures = got ? 0 : failures + 1;
      if (failures >= (this.opts.maxFailures ?? 10)) return;
      await sleep(Math.min(5_000, 250 * 2 ** Math.max(0, failures - 1)));
    }
  }
}
