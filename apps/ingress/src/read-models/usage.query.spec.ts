import { DomainError } from '@hub/domain';
import { MAX_USAGE_DAYS, usageRange } from './usage.query';

const NOW = new Date('2026-11-26T15:00:00Z');
const refusal = (q: Record<string, unknown>) => {
  try {
    usageRange(q, NOW);
  } catch (e) {
    return e instanceof DomainError ? `${e.code}: ${e.message}` : String(e);
  }
  return 'accepted';
};

describe('usage range', () => {
  it('defaults to the 30 days up to today, UTC', () => {
    expect(usageRange({}, NOW)).toEqual({ from: '2026-10-28', to: '2026-11-26' });
    expect(usageRange({ to: '2026-03-01' }, NOW)).toEqual({ from: '2026-01-31', to: '2026-03-01' });
  });

  it('takes one day, and a year and a day at most', () => {
    expect(usageRange({ from: '2026-11-26', to: '2026-11-26' }, NOW)).toEqual({ from: '2026-11-26', to: '2026-11-26' });
    expect(refusal({ from: '2024-01-01', to: '2024-12-31' })).toBe('accepted');
    expect(refusal({ from: '2024-01-01', to: '2025-01-01' })).toBe(`INVALID_COMMAND: from: at most ${MAX_USAGE_DAYS} days before to`);
  });

  it('refuses what is not a calendar day, and a range that ends before it starts', () => {
    expect(refusal({ from: '2026-02-30' })).toBe('INVALID_COMMAND: from: a day as YYYY-MM-DD');
    expect(refusal({ to: '26-11-01' })).toBe('INVALID_COMMAND: to: a day as YYYY-MM-DD');
    expect(refusal({ to: ['2026-11-01', '2026-11-02'] })).toMatch(/^INVALID_COMMAND: to: give it once/);
    expect(refusal({ from: '2026-11-02', to: '2026-11-01' })).toBe('INVALID_COMMAND: from: not after to');
  });
});
