import type { FlushPolicy } from './model-step';

export interface FlushWindowOptions {
  /** Largest text one delta carries before it is written regardless of its window. */
  maxChars: number;
  /** The window of a stream alone (`HUB_TEXT_FLUSH_MS`). */
  baseMs: number;
  /** The widest a crowd makes it (`HUB_TEXT_FLUSH_MAX_MS`). */
  maxMs: number;
}

/**
 * Turns streaming in one process up to which every stream keeps the base window. Past it the
 * window grows in proportion, so the process's text appends per second stay about
 * `QUIET_TURNS / baseMs` (1,000/s at 50 ms) until the window reaches its widest.
 */
export const QUIET_TURNS = 50;

/** The text window for `streaming` turns in flight in this process (ADR 0031). */
export function flushWindowMs(streaming: number, o: Pick<FlushWindowOptions, 'baseMs' | 'maxMs'>): number {
  if (streaming <= QUIET_TURNS) return o.baseMs;
  return Math.max(o.baseMs, Math.min(o.maxMs, Math.round((o.baseMs * streaming) / QUIET_TURNS)));
}

/**
 * A flush policy whose window widens under load (ADR 0031): a stream alone is written every
 * `baseMs`, as smooth as before; in a crowd each stream's window grows towards `maxMs`, so a
 * crowd costs fewer appends per token. Read at every window, so a stream follows the load. A
 * call's first write keeps the base window.
 */
export function loadScaledFlush(o: FlushWindowOptions, streaming: () => number): FlushPolicy {
  return {
    maxChars: o.maxChars,
    get maxDelayMs() {
      return flushWindowMs(streaming(), o);
    },
    // A call's first words go at the base window whatever the crowd: the wait for them is what a
    // watcher feels most (one more append per call).
    firstDelayMs: o.baseMs,
  };
}
