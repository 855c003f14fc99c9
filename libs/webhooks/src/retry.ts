import { nextDelay } from './schedule';
import { sendSigned, type AttemptResult, type SignedDelivery } from './send';

/** {@link SignedDelivery} with the delays to retry on (ms after each failed attempt). */
export interface RetriedDelivery extends Omit<SignedDelivery, 'at'> {
  schedule: readonly number[];
  /** Called after each attempt (log it, count it). */
  onAttempt?: (attempt: number, result: AttemptResult) => void;
  signal?: AbortSignal;
}

/**
 * Delivers one signed payload to one URL, retrying on the schedule (jitter, `Retry-After`) in
 * this process: for a caller without an endpoint or an outbox row (an A2A push notification,
 * say). Same `webhook-id` on every attempt, a fresh timestamp and signature each time, the same
 * address guard. Not durable: a process that dies forgets it; durable delivery is the outbox's.
 * Resolves with the last attempt's result.
 */
export async function deliverWithRetries(d: RetriedDelivery): Promise<AttemptResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await sendSigned({ ...d, at: new Date() });
    d.onAttempt?.(attempt, result);
    if (result.outcome === 'succeeded' || result.outcome === 'gone') return result;
    const delay = nextDelay(d.schedule, attempt, result.retryAfterMs);
    if (delay === null || d.signal?.aborted) return result;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, delay);
      d.signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
    if (d.signal?.aborted) return result;
  }
}
