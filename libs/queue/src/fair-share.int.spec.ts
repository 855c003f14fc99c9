import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import type { RunTurnJob } from './catalog';
import { HubQueues, startWorkers, type ProcessorMap, type StartedWorkers } from './queues';

// Issue 16: one tenant's backlog must not hold another tenant's turn behind it. Against real
// Redis: tenant A queues 30 turns, a worker with one slot starts on them, then tenant B queues
// one. Fair: B's turn is among the next two taken. In arrival order (fair off): B's is last.

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const trace = { correlationId: 'k' };

/** The order jobs were taken in, and how many were taken when B's was queued. */
async function run(fair: boolean): Promise<{ taken: string[]; queuedAt: number }> {
  const q = uniqueQueuePrefix(fair ? 'fair' : 'fifo');
  const conn = { redisUrl: TEST_REDIS_URL, prefix: q.prefix, fair };
  const queues = new HubQueues(conn);
  const taken: string[] = [];
  let workers: StartedWorkers | undefined;
  try {
    for (let i = 0; i < 30; i++) await queues.enqueue('runTurn', { tenantId: A, sessionId: `a${i}`, turnId: 't', reason: 'start', trace });
    let bQueued: () => void = () => undefined;
    const bTaken = new Promise<void>((res) => (bQueued = res));
    const processors: ProcessorMap = {
      expireApproval: async () => undefined,
      runTurn: async (p: RunTurnJob) => {
        taken.push(p.sessionId);
        if (p.sessionId === 'b0') bQueued();
        await new Promise((r) => setTimeout(r, 15));
      },
    };
    workers = startWorkers(conn, processors, { concurrency: 1, lockDurationMs: 30_000, isRetryable: () => false });
    while (taken.length < 3) await new Promise((r) => setTimeout(r, 5));
    // On a loaded machine more than 3 may be taken by now: count them when B's job is in.
    await queues.enqueue('runTurn', { tenantId: B, sessionId: 'b0', turnId: 't', reason: 'start', trace });
    const queuedAt = taken.length;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([bTaken, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
    while (taken.length < 31 && fair) await new Promise((r) => setTimeout(r, 5));
    return { taken, queuedAt };
  } finally {
    await workers?.close();
    await queues.close();
    await q.cleanup();
  }
}

it("fair: a tenant's single turn is taken next, ahead of another tenant's backlog, which keeps its order", async () => {
  const { taken, queuedAt } = await run(true);
  const b = taken.indexOf('b0');
  expect(b).toBeGreaterThanOrEqual(queuedAt);
  expect(b).toBeLessThanOrEqual(queuedAt + 2);
  const aOrder = taken.filter((s) => s !== 'b0');
  expect(aOrder).toEqual(Array.from({ length: 30 }, (_, i) => `a${i}`));
});

it('in arrival order (fair off) the same turn waits behind the whole backlog', async () => {
  const { taken } = await run(false);
  expect(taken.indexOf('b0')).toBe(30);
});
