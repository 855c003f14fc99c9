import { flushWindowMs, loadScaledFlush, QUIET_TURNS } from './flush-window';

describe('the text window under load', () => {
  const o = { baseMs: 50, maxMs: 250 };

  it('keeps the base window for a stream alone and a small crowd', () => {
    expect(flushWindowMs(1, o)).toBe(50);
    expect(flushWindowMs(QUIET_TURNS, o)).toBe(50);
  });

  it('widens in proportion past the quiet crowd, up to the widest', () => {
    expect(flushWindowMs(QUIET_TURNS * 2, o)).toBe(100);
    expect(flushWindowMs(QUIET_TURNS * 4, o)).toBe(200);
    expect(flushWindowMs(1000, o)).toBe(250);
  });

  it('never narrows below the base, even when the widest is set below it', () => {
    expect(flushWindowMs(1000, { baseMs: 300, maxMs: 250 })).toBe(300);
  });

  it('reads the load at each window', () => {
    let streaming = 1;
    const policy = loadScaledFlush({ maxChars: 8192, ...o }, () => streaming);
    expect(policy.maxDelayMs).toBe(50);
    streaming = 500;
    expect(policy.maxDelayMs).toBe(250);
    expect(policy.maxChars).toBe(8192);
    expect(policy.firstDelayMs).toBe(50);
  });
});
