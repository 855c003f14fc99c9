import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AddressGuard, isAddressRefused } from './address-guard';
import { retryAfterMs } from './schedule';
import { signedHeaders } from './signing';

/** How one attempt ended. Only `succeeded` (a 2xx within the timeout) counts as delivered. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'timeout' | 'refused' | 'redirected' | 'gone';

/** One signed POST to make. */
export interface SignedDelivery {
  url: string;
  /** The `webhook-id`: the same on every attempt of a message. */
  id: string;
  /** The JSON body, exactly as signed. */
  body: string;
  /** Every secret that signs now, current first. */
  secrets: readonly string[];
  timeoutMs: number;
  guard: AddressGuard;
  /** When the attempt is made (its `webhook-timestamp`); default now. */
  at?: Date;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** The response's status code, when one came. */
  status: number | null;
  latencyMs: number;
  /** The response's `Retry-After`, in ms. */
  retryAfterMs: number | null;
  error: string | null;
}

/** A response body is read (and thrown away) up to this much, so a connection can close cleanly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One attempt: a signed POST (Standard Webhooks headers) to `url`, on a new connection to an
 * address the guard checked (resolved now, for this attempt), never following a redirect. A 2xx
 * within `timeoutMs` (whole response) succeeds; 410 is `gone` (the endpoint asks to be
 * disabled); 3xx is `redirected`; anything else, a network error or the timeout is a failure.
 * Never throws.
 */
export function sendSigned(d: SignedDelivery): Promise<AttemptResult> {
  const headers = { 'content-type': 'application/json', 'user-agent': 'harness-hub-webhooks', ...signedHeaders(d.id, d.at ?? new Date(), d.body, d.secrets) };
  return postGuarded({ url: d.url, headers, body: d.body, timeoutMs: d.timeoutMs, guard: d.guard });
}

/** One guarded POST (see {@link postGuarded}): whatever headers the caller signs or authenticates with. */
export interface GuardedPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  guard: AddressGuard;
}

/**
 * The attempt itself, for webhooks and A2A push notifications alike: the URL and an address
 * literal checked here, a name checked in the connection's `lookup`, a new connection, no
 * redirect followed, the whole answer within `timeoutMs`, and the answer classified (2xx
 * succeeded, 410 gone, 3xx redirected, else failed with its `Retry-After`). Never throws.
 */
export async function postGuarded(d: GuardedPost): Promise<AttemptResult> {
  const started = performance.now();
  const done = (outcome: AttemptOutcome, status: number | null, error: string | null, retryAfter: number | null = null): AttemptResult => ({
    outcome,
    status,
    latencyMs: Math.round(performance.now() - started),
    retryAfterMs: retryAfter,
    error,
  });
  let url: URL;
  try {
    url = new URL(d.url);
  } catch {
    return done('refused', null, `not a URL: ${d.url}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return done('refused', null, `only http and https URLs: ${url.protocol}`);
  // An address literal is connected to without a lookup: check it here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const v = d.guard.check(host);
    if (!v.ok) return done('refused', null, `address refused: ${v.reason}`);
  }
  try {
    const res = await post(url, d.headers, d.body, d.timeoutMs, d.guard);
    const retryAfter = retryAfterMs(headerOf(res.headers['retry-after']), Date.now());
    if (res.status >= 200 && res.status < 300) return done('succeeded', res.status, null);
    if (res.status === 410) return done('gone', res.status, 'the receiver answered 410 Gone');
    if (res.status >= 300 && res.status < 400)
      return done('redirected', res.status, `redirects are not followed (${res.status} to ${headerOf(res.headers.location) ?? '?'})`);
    return done('failed', res.status, `HTTP ${res.status}`, retryAfter);
  } catch (e) {
    if (isAddressRefused(e)) return done('refused', null, (e as Error).message);
    if ((e as Error).message === TIMEOUT) return done('timeout', null, `no complete answer within ${d.timeoutMs} ms`);
    return done('failed', null, (e as Error).message);
  }
}

const TIMEOUT = 'timeout';

function headerOf(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  guard: AddressGuard,
): Promise<{ status: number; headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent false: a connection of its own, so each attempt resolves and checks its address.
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: guard.lookup as never,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error(TIMEOUT));
    }, timeoutMs);
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(timedOut ? new Error(TIMEOUT) : e);
    };
    req.on('error', fail);
    req.on('response', (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough read to know the answer: the rest is not ours to keep.
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('error', fail);
      res.on('close', () => {
        clearTimeout(timer);
        if (timedOut) return reject(new Error(TIMEOUT));
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      });
    });
    req.end(body);
  });
}
