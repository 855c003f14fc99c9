import { Worker, type Queue } from 'bullmq';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { HubQueues, connectionOf } from './queues';

// Issue 11, defect 9: `MaxListenersExceededWarning` under load. Each command waiting for its
// outcome added a listener to the shared Queue (BullMQ's waitUntilFinished); with more than ten
// in flight Node warned. Against real Redis: 40 commands wait at once, no warning, nothing left.

const q = uniqueQueuePrefix('waiters');
const idle = uniqueQueuePrefix('waiters-idle');
afterAll(() => Promise.all([q.cleanup(), idle.cleanup()]));

const meta = (i: number) => ({ commandId: `c${i}`, tenantId: '11111111-1111-4111-8111-111111111111', now: 'x', correlationId: 'k', actor: { type: 'api_key' as const, id: 'a' }, protocol: 'transport' as const });
const command = { type: 'CancelTurn' as const, sessionId: 's', reason: 'user' as const };

it('40 concurrent waits: every result arrives, no MaxListenersExceededWarning, no listener left behind', async () => {
  const conn = { redisUrl: TEST_REDIS_URL, prefix: q.prefix };
  const queues = new HubQueues(conn);
  const worker = new Worker(
    'commands',
    async (job) => {
      await new Promise((r) => setTimeout(r, 50));
      if ((job.data as { meta: { commandId: string } }).meta.commandId === 'c7') throw new Error('refused for the test');
      return { ok: true, id: (job.data as { meta: { commandId: string } }).meta.commandId };
    },
    { connection: connectionOf(conn), prefix: q.prefix, concurrency: 50 },
  );
  // The Queue the waits listen on (private: this test is about its listeners).
  const shared = (queues as unknown as { queues: Map<string, Queue> }).queues.get('commands') as Queue;
  let most = 0;
  const sample = setInterval(() => (most = Math.max(most, shared.listenerCount('closing'))), 5);
  try {
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => queues.enqueueAndWait('command', { command, meta: meta(i) }, 20_000)));
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ id: string }>).value.id)).toHaveLength(39);
    expect(results[7]).toEqual({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringContaining('refused for the test') }) });
    // A job that finished before anyone waited is answered from its stored state.
    expect(await queues.enqueueAndWait('command', { command, meta: meta(3) }, 5_000)).toEqual({ ok: true, id: 'c3' });
    // Node warns at 11 listeners of one event; BullMQ's own wait added one per call (40 here).
    expect(most).toBeLessThanOrEqual(2);
    expect(shared.listenerCount('closing')).toBeLessThanOrEqual(2);
  } finally {
    clearInterval(sample);
    await worker.close();
    await queues.close();
  }
});

it('a wait that runs out says "timed out before finishing" (the command service tells a timeout by it)', async () => {
  const queues = new HubQueues({ redisUrl: TEST_REDIS_URL, prefix: idle.prefix });
  try {
    await expect(queues.enqueueAndWait('command', { command, meta: meta(99) }, 300)).rejects.toThrow(/timed out before finishing/);
  } finally {
    await queues.close();
  }
});
