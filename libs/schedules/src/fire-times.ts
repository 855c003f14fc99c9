import { Cron } from 'croner';
import { DomainError, type ScheduleSpec } from '@hub/domain';

/** The timing part of a schedule: what fire times are computed from. */
export type Timing = Pick<ScheduleSpec, 'cron' | 'intervalMs' | 'timeZone' | 'startAt' | 'endAt'>;

/**
 * A schedule's fire times. Pure: every answer is a function of the timing and the instants
 * given (the clock is the caller's), so a spec can walk a daylight-saving change at any date.
 *
 * Cron fields are read in the schedule's IANA time zone by croner: a local time that does not
 * exist (spring forward) fires at the first instant after the gap, one that happens twice (fall
 * back) fires once, at its first occurrence. Intervals are aligned to the Unix epoch, so a tick's
 * time does not depend on when the schedule was saved or a ticker started.
 */
export class FireTimes {
  private readonly cron: Cron | null;
  private readonly start: number;
  private readonly end: number;

  constructor(private readonly timing: Timing) {
    this.start = timing.startAt === null ? -Infinity : Date.parse(timing.startAt);
    this.end = timing.endAt === null ? Infinity : Date.parse(timing.endAt);
    this.cron = timing.cron === undefined ? null : compileCron(timing.cron, timing.timeZone);
  }

  /** The first fire time strictly after `after`, or null when the schedule has ended. */
  next(after: Date): Date | null {
    // Before the start, the first time at or after it.
    const from = Math.max(after.getTime(), this.start - 1);
    let next: number | null;
    if (this.cron) next = this.cron.nextRun(new Date(from))?.getTime() ?? null;
    else {
      const every = this.timing.intervalMs ?? 1;
      next = (Math.floor(from / every) + 1) * every;
    }
    return next === null || next >= this.end ? null : new Date(next);
  }

  /** The next `n` fire times after `after`. */
  preview(after: Date, n: number): Date[] {
    const out: Date[] = [];
    for (let t = this.next(after); t && out.length < n; t = this.next(t)) out.push(t);
    return out;
  }

  /**
   * The fire times in (after, upTo], oldest first, and how many there are in all. Only the
   * newest `keep` are listed (a long downtime of a fast schedule has more ticks than anyone
   * needs listed one by one); `count` still counts every one, up to `maxCount`.
   */
  between(after: Date, upTo: Date, keep = 1_000, maxCount = 1_000_000): { times: Date[]; count: number } {
    const times: Date[] = [];
    let count = 0;
    if (!this.cron && this.timing.intervalMs !== undefined) {
      // Intervals are counted, not walked: a day of 1 s ticks is one division.
      const every = this.timing.intervalMs;
      const lo = Math.max(after.getTime(), this.start - 1);
      const hi = Math.min(upTo.getTime(), this.end - 1);
      const first = Math.floor(lo / every) + 1;
      const last = Math.floor(hi / every);
      count = Math.max(0, last - first + 1);
      for (let k = Math.max(first, last - keep + 1); k <= last; k++) times.push(new Date(k * every));
      return { times, count };
    }
    for (let t = this.next(after); t && t.getTime() <= upTo.getTime() && count < maxCount; t = this.next(t)) {
      count++;
      times.push(t);
      if (times.length > keep) times.shift();
    }
    return { times, count };
  }
}

/** A cron pattern in a time zone, or INVALID_COMMAND saying what is wrong with it. */
function compileCron(pattern: string, timeZone: string): Cron {
  try {
    const cron = new Cron(pattern, { timezone: timeZone, paused: true });
    // croner checks the time zone only when it computes a time.
    cron.nextRun(new Date(0));
    return cron;
  } catch (e) {
    throw new DomainError('INVALID_COMMAND', `cron "${pattern.slice(0, 100)}" in ${timeZone}: ${(e as Error).message}`);
  }
}
