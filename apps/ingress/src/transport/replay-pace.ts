import { setTimeout as sleep } from 'node:timers/promises';
import type { HubEvent, Recorded } from '@hub/domain';

/** Fastest replay a watcher may ask for: past it a replay is a dump, and `after=` reads do that. */
export const MAX_REPLAY_SPEED = 1000;

/**
 * Longest recorded pause a replay reproduces, at speed 1: a session left idle for an hour between
 * two turns would otherwise stall its replay for an hour. At speed N the cap is this divided by N.
 */
export const MAX_REPLAY_GAP_MS = 5_000;

/**
 * `?replay=1[&speed=N]` of a connect URL: `undefined` for a live socket, the speed for a replay
 * (absent is 1, the recorded pace; otherwise a number in (0, MAX_REPLAY_SPEED]), `null` for
 * anything else (another `replay` value, a bad speed, a speed without replay), for the caller to refuse.
 */
export function replaySpeedOf(params: URLSearchParams): number | undefined | null {
  const replay = params.get('replay');
  const raw = params.get('speed');
  if (replay === null) return raw === null ? undefined : null;
  if (replay !== '1') return null;
  if (raw === null) return 1;
  const speed = raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(speed) && speed > 0 && speed <= MAX_REPLAY_SPEED ? speed : null;
}

/** How long to wait between two recorded events at `speed`: their recorded distance, capped, scaled. */
export function replayGapMs(previousAt: string, nextAt: string, speed: number): number {
  const recorded = Date.parse(nextAt) - Date.parse(previousAt);
  if (!(recorded > 0)) return 0;
  return Math.min(recorded, MAX_REPLAY_GAP_MS) / speed;
}

/**
 * The events of `source` at their recorded pace divided by `speed`: each one is due its (capped,
 * scaled) distance to the one before (the first to `startAt`, when given). Due times add up on one
 * timeline from the start, so time spent sending and sub-millisecond timer rounding do not pile up
 * into a slower replay. Waits end early with an `AbortError` when `signal` aborts, so a watcher
 * who leaves does not hold a timer.
 */
export async function* paced(
  source: AsyncIterable<Recorded<HubEvent>>,
  speed: number,
  signal: AbortSignal,
  startAt?: string,
): AsyncGenerator<Recorded<HubEvent>> {
  const origin = performance.now();
  let dueMs = 0;
  let previousAt = startAt;
  for await (const event of source) {
    if (previousAt !== undefined) dueMs += replayGapMs(previousAt, event.createdAt, speed);
    const wait = origin + dueMs - performance.now();
    if (wait >= 1) await sleep(wait, undefined, { signal });
    signal.throwIfAborted();
    previousAt = event.createdAt;
    yield event;
  }
}
