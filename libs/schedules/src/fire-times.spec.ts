import { FireTimes, type Timing } from './fire-times';

// Fire times are computed from the instants given: these walk the two daylight-saving changes
// of 2026 in Europe/Berlin (29 March 02:00 CET -> 03:00 CEST, 25 October 03:00 CEST -> 02:00
// CET) with the clock injected as the `after` of each call.

const berlin = (cron: string, more: Partial<Timing> = {}): FireTimes => new FireTimes({ cron, timeZone: 'Europe/Berlin', startAt: null, endAt: null, ...more });
const iso = (ds: Date[]) => ds.map((d) => d.toISOString());

describe('a cron schedule in Europe/Berlin across daylight saving', () => {
  it('keeps 09:00 local: 08:00 UTC in winter, 07:00 UTC in summer (spring forward)', () => {
    const now = new Date('2026-03-27T12:00:00Z');
    expect(iso(berlin('0 9 * * *').preview(now, 4))).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
  });

  it('keeps 09:00 local when summer time ends (fall back)', () => {
    const now = new Date('2026-10-24T00:00:00Z');
    expect(iso(berlin('0 9 * * *').preview(now, 3))).toEqual(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });

  it('fires a local time that does not exist (02:30 on 29 March) at the end of the gap, once', () => {
    const now = new Date('2026-03-27T12:00:00Z');
    expect(iso(berlin('30 2 * * *').preview(now, 3))).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('fires a local time that happens twice (02:30 on 25 October) once, at its first occurrence', () => {
    const now = new Date('2026-10-23T12:00:00Z');
    expect(iso(berlin('30 2 * * *').preview(now, 3))).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('an hourly schedule fires every real hour through the repeated hour: 25 ticks that day', () => {
    const day = berlin('0 * * * *').between(new Date('2026-10-24T21:59:59Z'), new Date('2026-10-25T22:59:59Z'));
    expect(day.count).toBe(25);
    const gaps = day.times.slice(1).map((t, i) => t.getTime() - (day.times[i] as Date).getTime());
    expect(new Set(gaps)).toEqual(new Set([3_600_000]));
    // And 23 on the day the clocks go forward.
    expect(berlin('0 * * * *').between(new Date('2026-03-28T22:59:59Z'), new Date('2026-03-29T21:59:59Z')).count).toBe(23);
  });

  it('resumes from any injected instant without firing a time twice', () => {
    const f = berlin('*/20 * * * *');
    let now = new Date('2026-03-29T00:55:00Z');
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const next = f.next(now) as Date;
      seen.push(next.toISOString());
      now = next;
    }
    expect(seen).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T01:20:00.000Z',
      '2026-03-29T01:40:00.000Z',
      '2026-03-29T02:00:00.000Z',
      '2026-03-29T02:20:00.000Z',
      '2026-03-29T02:40:00.000Z',
    ]);
  });
});

describe('bounds and intervals', () => {
  it('starts at startAt (inclusive) and stops before endAt', () => {
    const f = berlin('0 * * * *', { startAt: '2026-01-01T10:00:00Z', endAt: '2026-01-01T13:00:00Z' });
    expect(iso(f.preview(new Date('2025-12-01T00:00:00Z'), 10))).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', '2026-01-01T12:00:00.000Z']);
    expect(f.next(new Date('2026-01-01T12:00:00Z'))).toBeNull();
  });

  it('aligns intervals to the epoch and counts a long gap without walking it', () => {
    const f = new FireTimes({ intervalMs: 2_000, timeZone: 'UTC', startAt: null, endAt: null });
    expect(iso(f.preview(new Date('2026-01-01T00:00:01.500Z'), 2))).toEqual(['2026-01-01T00:00:02.000Z', '2026-01-01T00:00:04.000Z']);
    const day = f.between(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z'), 3);
    expect(day.count).toBe(43_200);
    expect(iso(day.times)).toEqual(['2026-01-01T23:59:56.000Z', '2026-01-01T23:59:58.000Z', '2026-01-02T00:00:00.000Z']);
  });

  it('refuses a bad pattern or time zone with INVALID_COMMAND', () => {
    expect(() => berlin('every day')).toThrow(expect.objectContaining({ code: 'INVALID_COMMAND' }));
    expect(() => new FireTimes({ cron: '0 * * * *', timeZone: 'Mars/Olympus', startAt: null, endAt: null })).toThrow(
      expect.objectContaining({ code: 'INVALID_COMMAND' }),
    );
  });
});
