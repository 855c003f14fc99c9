import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { A2A_PUSH_CONTENT_TYPE } from '@hub/protocol-a2a';
import { isAddressRefused, retryAfterMs, type AddressGuard, type AttemptResult } from '@hub/webhooks';

/** One notification POST to make. */
export interface PushPost {
  url: string;
  /** The `webhook-id`: the same on every attempt, for the receiver to dedupe by. */
  id: string;
  body: string;
  /** The config's own headers (its token, or its `Authorization`). */
  headers: Record<string, string>;
  timeoutMs: number;
  guard: AddressGuard;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
const TIMEOUT = 'timeout';

/**
 * One attempt, with the webhook lib's rules and its `AttemptResult`: the SSRF guard checks the
 * address connected to (a literal here, a name in the connection's `lookup`), a new connection
 * each time, no redirect followed, a 2xx within the timeout succeeds, 410 is `gone`. Unlike
 * `sendSigned` it carries the config's headers (the A2A token), which `SignedDelivery` has no
 * place for, and no signature (a push config has no secret of ours: its token authenticates us
 * to the receiver). Never throws.
 */
export async function postNotification(d: PushPost): Promise<AttemptResult> {
  const started = performance.now();
  const done = (outcome: AttemptResult['outcome'], status: number | null, error: string | null, retryAfter: number | null = null): AttemptResult => ({ outcome, status, latencyMs: Math.round(performance.now() - started), retryAfterMs: retryAfter, error });
  let url: URL;
  try {
    url = new URL(d.url);
  } catch {
    return done('refused', null, `not a URL: ${d.url}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return done('refused', null, `only http and https URLs: ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const v = d.guard.check(host);
    if (!v.ok) return done('refused', null, `address refused: ${v.reason}`);
  }
  const headers = { ...d.headers, 'content-type': A2A_PUSH_CONTENT_TYPE, 'user-agent': 'harness-hub-a2a-push', 'webhook-id': d.id, 'content-length': String(Buffer.byteLength(d.body)) };
  try {
    const res = await post(url, headers, d.body, d.timeoutMs, d.guard);
    const retryAfter = retryAfterMs(first(res.headers['retry-after']), Date.now());
    if (res.status >= 200 && res.status < 300) return done('succeeded', res.status, null);
    if (res.status === 410) return done('gone', res.status, 'the receiver answered 410 Gone');
    if (res.status >= 300 && res.status < 400) return done('redirected', res.status, `redirects are not followed (${res.status})`);
    return done('failed', res.status, `HTTP ${res.status}`, retryAfter);
  } catch (e) {
    if (isAddressRefused(e)) return done('refused', null, (e as Error).message);
    if ((e as Error).message === TIMEOUT) return done('timeout', null, `no complete answer within ${d.timeoutMs} ms`);
    return done('failed', null, (e as Error).message);
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, guard: AddressGuard): Promise<{ status: number; headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers, agent: false, lookup: guard.lookup as never });
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
