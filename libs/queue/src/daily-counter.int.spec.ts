import { randomUUID } from 'node:crypto';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { DailyCounter, DailyEventBytes, DailyTokens } from './daily-counter';

// The per-tenant daily counters behind `tokensPerDay` and `eventBytesPerDay` (issue 16), on real
// Redis: shared by every process and kept when one restarts (a new instance reads the same count).

const q = uniqueQueuePrefix('daily');
afterAll(() => q.cleanup());

it('adds per tenant, and a new instance (a restarted process) reads what the old one counted', async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const first = new DailyCounter(TEST_REDIS_URL, q.prefix, 'things-day');
  await first.add(a, 10);
  await first.add(a, 5);
  await first.add(b, 1);
  await first.add(b, 0); // nothing to count
  await first.close();
  const again = new DailyCounter(TEST_REDIS_URL, q.prefix, 'things-day');
  try {
    expect((await again.used(a)).amount).toBe(15);
    expect((await again.used(b)).amount).toBe(1);
    expect((await again.used(randomUUID())).amount).toBe(0);
    // The window is a day from the first count.
    const { resetsInMs } = await again.used(a);
    expect(resetsInMs).toBeGreaterThan(23 * 3600_000);
    expect(resetsInMs).toBeLessThanOrEqual(24 * 3600_000);
  } finally {
    await again.close();
  }
});

it('counts tokens and event bytes apart: one limit does not spend the other', async () => {
  const t = randomUUID();
  const tokens = new DailyTokens(TEST_REDIS_URL, q.prefix);
  const bytes = new DailyEventBytes(TEST_REDIS_URL, q.prefix);
  try {
    await tokens.add(t, 100);
    bytes.count(t, 7);
    await bytes.flush();
    expect((await tokens.used(t)).amount).toBe(100);
    expect((await bytes.used(t)).amount).toBe(7);
  } finally {
    await tokens.close();
    await bytes.close();
  }
});

it('event bytes are counted from a hot path without waiting: batched, and what is pending is flushed on close', async () => {
  const t = randomUUID();
  const bytes = new DailyEventBytes(TEST_REDIS_URL, q.prefix, { flushMs: 60_000 });
  for (let i = 0; i < 1000; i++) bytes.count(t, 3);
  await bytes.close(); // long before the flush timer: close must not lose the 3000 bytes
  const reader = new DailyEventBytes(TEST_REDIS_URL, q.prefix);
  try {
    expect((await reader.used(t)).amount).toBe(3000);
  } finally {
    await reader.close();
  }
});

it('a count that cannot reach Redis is reported, not thrown at the appender', async () => {
  const failures: string[] = [];
  const bytes = new DailyEventBytes('redis://127.0.0.1:1', q.prefix, { flushMs: 10, onError: (e) => failures.push(e.message) });
  expect(() => bytes.count(randomUUID(), 5)).not.toThrow();
  const until = Date.now() + 10_000;
  while (failures.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  expect(failures.length).toBeGreaterThan(0);
  await bytes.close();
  // ioredis lets a reconnect already scheduled (at most 2 s away) run out before the process may exit.
  await new Promise((r) => setTimeout(r, 2_100));
});
