import { daysBetween, usageSeries } from './usage-series';
import type { UsageDay } from './useUsage';

const day = (d: string, key: string | null, completed: number, promptTokens: number): UsageDay => ({
  day: d,
  keyPrefix: key,
  turns: { completed, failed: 0, cancelled: 1, delivered: 0, open: 0 },
  modelCalls: 0,
  promptTokens,
  completionTokens: 1,
  toolCalls: {},
  approvals: 0,
  approvalWaitMs: 0,
});

describe('usage series', () => {
  it('has every day of the range, both ends included, across a month end', () => {
    expect(daysBetween('2026-10-30', '2026-11-02')).toEqual(['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02']);
    expect(daysBetween('2026-11-02', '2026-11-02')).toEqual(['2026-11-02']);
  });

  it('sums the keys of a day, and a day with no row is zero', () => {
    const s = usageSeries([day('2026-11-01', 'a', 2, 10), day('2026-11-01', null, 1, 5), day('2026-11-03', 'a', 4, 7)], '2026-11-01', '2026-11-03');
    expect(s.x).toEqual([Date.UTC(2026, 10, 1) / 1000, Date.UTC(2026, 10, 2) / 1000, Date.UTC(2026, 10, 3) / 1000]);
    expect(s.completed).toEqual([3, 0, 4]);
    expect(s.cancelled).toEqual([2, 0, 1]);
    expect(s.promptTokens).toEqual([15, 0, 7]);
    expect(s.completionTokens).toEqual([2, 0, 1]);
  });
});
