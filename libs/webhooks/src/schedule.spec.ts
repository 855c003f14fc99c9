import { DEFAULT_SCHEDULE, nextDelay, parseSchedule, retryAfterMs } from './schedule';

describe('retry schedule', () => {
  it('reads the usual schedule and seconds for tests', () => {
    expect(parseSchedule(DEFAULT_SCHEDULE)).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(parseSchedule('1s, 1.5s,200ms')).toEqual([1000, 1500, 200]);
    expect(() => parseSchedule('5x')).toThrow(/not a delay: 5x/);
    expect(() => parseSchedule('')).toThrow(/at least one/);
  });

  it('jitters each delay by at most 10 % and stops after the last', () => {
    const s = [1000, 60_000];
    expect(nextDelay(s, 1, null, () => 0)).toBe(900);
    expect(nextDelay(s, 1, null, () => 1)).toBe(1100);
    expect(nextDelay(s, 2, null, () => 0.5)).toBe(60_000);
    expect(nextDelay(s, 3, null)).toBeNull();
  });

  it('waits as long as Retry-After asks when that is longer', () => {
    expect(nextDelay([1000], 1, 30_000, () => 0.5)).toBe(30_000);
    expect(nextDelay([60_000], 1, 1_000, () => 0.5)).toBe(60_000);
    expect(retryAfterMs('7', 0)).toBe(7000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(undefined, 0)).toBeNull();
  });
});
