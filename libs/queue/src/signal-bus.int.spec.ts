import Redis from 'ioredis';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { CancelBus, HarnessStopBus } from './signal-bus';

// The buses against real Redis: a signal reaches every listener of its own channel only, and a
// foreign or malformed message on the channel is ignored rather than crashing the listener.

const q = uniqueQueuePrefix('signals');
afterAll(() => q.cleanup());

const waitFor = async (what: string, check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

it('delivers (tenant, id) to every listener of its channel, and not to the other bus', async () => {
  const cancelA = new CancelBus(TEST_REDIS_URL, q.prefix);
  const cancelB = new CancelBus(TEST_REDIS_URL, q.prefix);
  const stops = new HarnessStopBus(TEST_REDIS_URL, q.prefix);
  const got: string[] = [];
  await cancelA.listen((t, id) => got.push(`a:${t}:${id}`));
  await cancelB.listen((t, id) => got.push(`b:${t}:${id}`));
  await stops.listen((t, id) => got.push(`stop:${t}:${id}`));
  const raw = new Redis(TEST_REDIS_URL);
  try {
    await raw.publish(`${q.prefix}:turn-cancel`, 'not json');
    await raw.publish(`${q.prefix}:turn-cancel`, JSON.stringify({ tenantId: 't1', sessionId: 'wrong field' }));
    await cancelA.publish('t1', 'turn-1');
    await stops.publish('t2', 'session-9');
    await waitFor('three signals', () => got.length >= 3);
    await new Promise((r) => setTimeout(r, 100)); // nothing else arrives late
    expect(got.sort()).toEqual(['a:t1:turn-1', 'b:t1:turn-1', 'stop:t2:session-9']);
  } finally {
    raw.disconnect();
    await Promise.all([cancelA.close(), cancelB.close(), stops.close()]);
  }
});

it('closes cleanly when it never published (no connection was opened for it)', async () => {
  const bus = new HarnessStopBus(TEST_REDIS_URL, q.prefix);
  await expect(bus.close()).resolves.toBeUndefined();
});
