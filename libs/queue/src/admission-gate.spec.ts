import { nextLimit } from './admission-gate';

describe('the admission gate', () => {
  const limits = { max: 1000, min: 8, loopDelayMs: 100, appendBacklog: 2000 };
  const calm = { loopDelayMs: 12, appendBacklog: 3, running: 400 };

  it('opens by a tenth of the maximum per calm tick, never past the maximum', () => {
    expect(nextLimit(500, calm, limits)).toBe(600);
    expect(nextLimit(950, calm, limits)).toBe(1000);
    expect(nextLimit(1000, calm, limits)).toBe(1000);
  });

  it('closes to 80 % of what runs when the event loop lags', () => {
    expect(nextLimit(1000, { ...calm, loopDelayMs: 250 }, limits)).toBe(320);
  });

  it('closes when appends back up behind Postgres', () => {
    expect(nextLimit(1000, { ...calm, appendBacklog: 5000 }, limits)).toBe(320);
  });

  it('never closes below its floor, nor opens while overloaded', () => {
    expect(nextLimit(1000, { loopDelayMs: 500, appendBacklog: 0, running: 2 }, limits)).toBe(8);
    expect(nextLimit(100, { loopDelayMs: 500, appendBacklog: 0, running: 400 }, limits)).toBe(100);
  });
});
