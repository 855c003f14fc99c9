import { DEFAULT_RETRY, isIdempotent, retryDelay } from './retry';
import { errorOfAnswer, retryAfterMs } from './errors';

const policy = { ...DEFAULT_RETRY, attempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 10_000 };

describe('retryDelay: what is tried again, and after how long', () => {
  it('a 429 or 503 with Retry-After waits exactly that long, whatever the method (the hub refused before doing anything)', () => {
    expect(retryDelay({ status: 429, retryAfterMs: 2_000 }, false, 1, policy, 0.5)).toBe(2_000);
    expect(retryDelay({ status: 503, retryAfterMs: 5_000 }, false, 2, policy, 0.5)).toBe(5_000);
  });

  it('a Retry-After longer than the policy allows, or the last try, goes to the caller', () => {
    expect(retryDelay({ status: 429, retryAfterMs: 60_000 }, true, 1, policy, 0.5)).toBeNull();
    expect(retryDelay({ status: 429, retryAfterMs: 1_000 }, true, 3, policy, 0.5)).toBeNull();
  });

  it('no answer, a 502 or 504: tried again only when the request is idempotent, with a growing backoff', () => {
    expect(retryDelay({ unreachable: true }, false, 1, policy, 0)).toBeNull();
    expect(retryDelay({ status: 502 }, false, 1, policy, 0)).toBeNull();
    expect(retryDelay({ unreachable: true }, true, 1, policy, 0)).toBe(50);
    expect(retryDelay({ status: 504 }, true, 2, policy, 0.999)).toBeCloseTo(200, 0);
    expect(retryDelay({ unreachable: true }, true, 2, { ...policy, attempts: 10 }, 0)).toBe(100);
  });

  it('an answer the hub meant (400, 401, 404, 409, 500) is never tried again, nor a 429 that says no when', () => {
    for (const status of [400, 401, 403, 404, 409, 500]) expect(retryDelay({ status }, true, 1, policy, 0.5)).toBeNull();
    expect(retryDelay({ status: 429 }, true, 1, policy, 0.5)).toBeNull();
  });

  it('idempotent: GET, PUT, DELETE, and a POST with an idempotency key', () => {
    expect(['GET', 'put', 'DELETE'].map((m) => isIdempotent(m, undefined))).toEqual([true, true, true]);
    expect(isIdempotent('POST', undefined)).toBe(false);
    expect(isIdempotent('POST', 'k1')).toBe(true);
  });
});

describe('errors as values', () => {
  const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });

  it("a problem+json answer becomes a HubError with the hub's code, status and Retry-After", () => {
    const e = errorOfAnswer(
      429,
      headers({ 'retry-after': '3' }),
      JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', detail: 'limit used up' }),
      0,
    );
    expect(e).toMatchObject({ code: 'RATE_LIMITED', message: 'limit used up', status: 429, retryAfterMs: 3_000 });
  });

  it('an answer without a code is HTTP_<status>, its text the message', () => {
    expect(errorOfAnswer(502, headers({}), 'Bad Gateway', 0)).toMatchObject({ code: 'HTTP_502', message: 'Bad Gateway', retryAfterMs: undefined });
  });

  it('Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:05 GMT', 1_000)).toBe(4_000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(retryAfterMs(null, 0)).toBeUndefined();
  });
});
