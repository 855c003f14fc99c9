import { HubError, HubUnreachableError, errorOfAnswer, retryAfterMs } from './errors';
import { DEFAULT_RETRY, isIdempotent, retryDelay, type RetryPolicy } from './retry';

/** Where the hub is: a URL, or a function asked before every request and connection (a hub that moves). */
export type HubLocation = string | URL | (() => string | URL);

export interface HttpOptions {
  baseUrl: HubLocation;
  /**
   * The API key, sent as `Authorization: Bearer`. Without one nothing is sent for it: a browser
   * signed in with the identity provider has its session cookie go by itself (with `headers`
   * carrying its `X-Hub-CSRF` token).
   */
  apiKey?: string;
  /** Headers sent with every request (`X-Hub-CSRF` for a console signed in with the identity provider). */
  headers?: Record<string, string>;
  retry?: Partial<RetryPolicy>;
  /** A fetch of your own (a proxy agent, a test double); the global fetch by default. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** Sent as `Idempotency-Key`; makes a POST safe to try again. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Called before each wait to try again (for logs and tests). */
  onRetry?: (info: { attempt: number; delayMs: number; error: HubError | HubUnreachableError }) => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * The hub's HTTP API with one key: JSON in and out, errors as HubError (problem+json's code,
 * status and Retry-After), tries again where that is safe (retry.ts).
 */
export class HubHttp {
  readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: HttpOptions) {
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
    this.fetchImpl = opts.fetch ?? ((...args) => fetch(...args));
  }

  /** The hub's base URL as of now. */
  base(): URL {
    const at = this.opts.baseUrl;
    return new URL(String(typeof at === 'function' ? at() : at));
  }

  /** The API key ('' when the requests authenticate otherwise: a session cookie). */
  get apiKey(): string {
    return this.opts.apiKey ?? '';
  }

  url(path: string, query: RequestOptions['query'] = {}): URL {
    const u = new URL(path, this.base());
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
    return u;
  }

  /** A request answered with JSON (or nothing: `{}`), parsed. */
  async json<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, { ...o, headers: { accept: 'application/json', ...o.headers } });
    const text = await res.text();
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** A request whose successful answer is handed over unread (a stream, NDJSON); errors are thrown as for json(). */
  async send(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const idempotent = isIdempotent(method, o.idempotencyKey);
    for (let attempt = 1; ; attempt++) {
      const url = this.url(path, o.query);
      let error: HubError | HubUnreachableError;
      let outcome: Parameters<typeof retryDelay>[0];
      try {
        const res = await this.fetchImpl(url, {
          method,
          signal: o.signal,
          headers: {
            ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
            ...this.opts.headers,
            ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(o.idempotencyKey === undefined ? {} : { 'idempotency-key': o.idempotencyKey }),
            ...o.headers,
          },
          body: o.body === undefined ? undefined : JSON.stringify(o.body),
        });
        if (res.ok) return res;
        error = errorOfAnswer(res.status, res.headers, await res.text(), Date.now());
        outcome = { status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after'), Date.now()) };
      } catch (e) {
        if (o.signal?.aborted) throw e;
        error = new HubUnreachableError(url.origin, e);
        outcome = { unreachable: true };
      }
      const delayMs = retryDelay(outcome, idempotent, attempt, this.policy, Math.random());
      if (delayMs === null) throw error;
      o.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, o.signal);
    }
  }
}
