/**
 * When the client tries a request again (ADR 0046): never for an answer the hub gave on purpose,
 * except a 429 or 503 that says when (`Retry-After`: the hub refused before doing anything, so
 * trying again cannot do it twice); a lost connection or a gateway's 502/504 only when the request
 * is idempotent (a GET, PUT or DELETE, or a POST with an idempotency key), since the first try
 * may have been done.
 */
export interface RetryPolicy {
  /** Tries in all, the first included (1: never again). */
  attempts: number;
  /** Backoff after the first failure without a Retry-After; doubles each time. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

/** What one try ended with: an HTTP status (and its Retry-After), or no answer. */
export type Outcome = { status: number; retryAfterMs?: number } | { unreachable: true };

/**
 * Milliseconds to wait before try number `attempt + 1`, or null for "do not try again".
 * `attempt` counts from 1; `random` in [0, 1) spreads clients that failed together.
 */
export function retryDelay(outcome: Outcome, idempotent: boolean, attempt: number, policy: RetryPolicy, random: number): number | null {
  if (attempt >= policy.attempts) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * (0.5 + random / 2);
  if ('unreachable' in outcome) return idempotent ? backoff : null;
  if (outcome.status === 429 || outcome.status === 503) {
    if (outcome.retryAfterMs === undefined) return idempotent && outcome.status === 503 ? backoff : null;
    return outcome.retryAfterMs <= policy.maxRetryAfterMs ? outcome.retryAfterMs : null;
  }
  if (outcome.status === 502 || outcome.status === 504) return idempotent ? backoff : null;
  return null;
}

/** Whether a request may be repeated without doing its work twice. */
export function isIdempotent(method: string, idempotencyKey: string | undefined): boolean {
  return ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method.toUpperCase()) || idempotencyKey !== undefined;
}
