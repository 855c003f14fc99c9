import { isDomainError } from '@hub/domain';

/** Options of {@link appendWithRetry}. */
export interface RetryOptions {
  /** Total tries, the first included. Default 5. */
  attempts?: number;
  /** Upper bound of the random pause before a retry, in ms; doubles per retry. Default 5. */
  baseDelayMs?: number;
}

/**
 * Runs `fn` (read the stream, decide, append with the version read) again when it fails with
 * `STREAM_VERSION_CONFLICT`, at most `attempts` times in all; any other error, and the last
 * conflict, propagate. The jittered pause keeps racing writers from colliding in lockstep.
 */
export async function appendWithRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const base = options.baseDelayMs ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!isDomainError(e) || e.code !== 'STREAM_VERSION_CONFLICT' || attempt >= attempts) throw e;
      const cap = Math.min(base * 2 ** (attempt - 1), 200);
      await new Promise((r) => setTimeout(r, Math.random() * cap));
    }
  }
}
