/** The usual schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a schedule like `5s,5m,30m` (units ms, s, m, h, d) into milliseconds; throws on a bad one. */
export function parseSchedule(value: string): number[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('a retry schedule needs at least one delay');
  return parts.map((p) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(p);
    if (!m) throw new Error(`not a delay: ${p} (expected a number and ms, s, m, h or d)`);
    return Math.round(Number(m[1]) * UNITS[m[2]]);
  });
}

/** Jitter: each delay is moved by up to this fraction either way, so retries of many messages spread out. */
const JITTER = 0.1;

/**
 * The delay before the next attempt after `attempts` failed ones, or null when the schedule is
 * spent. `retryAfterMs` (the endpoint's `Retry-After`) wins when it asks for longer.
 */
export function nextDelay(schedule: readonly number[], attempts: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  if (attempts < 1 || attempts > schedule.length) return null;
  const base = schedule[attempts - 1];
  const jittered = Math.round(base * (1 + JITTER * (2 * random() - 1)));
  return retryAfterMs !== null && retryAfterMs > jittered ? retryAfterMs : jittered;
}

/** `Retry-After` (seconds, or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
