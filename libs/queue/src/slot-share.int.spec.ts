import { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { SlotShare } from './slot-share';

// Slots shared between tenants (issue 16, ADR 0013) on real BullMQ and Redis: jobs hold their
// slot until they end, as turns do. A tenant arriving beside a busy one starts at once in a
// borrowed slot, even when the queue's order puts it last; the busy one pays it back; a tenant
// alone keeps every slot; held jobs go back to the queue when the worker closes, and to an idle
// worker when one is there.

type Data = { tenant: string; ms: number; n: number };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const q = uniqueQueuePrefix('slot_share');
const connection = { url: TEST_REDIS_URL, maxRetriesPerRequest: null };
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => undefined);
  await q.cleanup();
});

/** A queue and a worker whose jobs sleep `ms`, recording when each ran and how many ran at once. */
function rig(name: string, slots: number, burst: number, holdMs = 1_000, timing: { pollMs?: number; added?: EventEmitter } = { pollMs: 20 }) {
  const queue = new Queue<Data>(name, { connection, prefix: q.prefix });
  const log: { tenant: string; n: number; start: number; end: number }[] = [];
  const now = { all: 0, max: 0, byTenant: new Map<string, number>(), maxByTenant: new Map<string, number>() };
  const worker = (share = new SlotShare(queue as Queue, { slots, burst, tenantOf: (j: Job) => (j.data as Data).tenant, holdMs, ...timing })) => {
    const w = new Worker<Data>(
      name,
      (job, token) =>
        share.run(job, token, async () => {
          const t = job.data.tenant;
          now.all++;
          now.max = Math.max(now.max, now.all);
          now.byTenant.set(t, (now.byTenant.get(t) ?? 0) + 1);
          now.maxByTenant.set(t, Math.max(now.maxByTenant.get(t) ?? 0, now.byTenant.get(t) ?? 0));
          const start = Date.now();
          await sleep(job.data.ms);
          log.push({ tenant: t, n: job.data.n, start, end: Date.now() });
          now.all--;
          now.byTenant.set(t, (now.byTenant.get(t) ?? 1) - 1);
        }),
      { connection, prefix: q.prefix, concurrency: share.fetchSlots },
    );
    w.on('closing', () => share.close());
    opened.push(w);
    return w;
  };
  opened.push(queue);
  const add = (tenant: string, n: number, ms: number, priority: number) => queue.add('job', { tenant, ms, n }, { priority, removeOnComplete: true });
  return { queue, log, now, worker, add };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

it('a tenant arriving beside a busy one starts at once in a borrowed slot, even when the queue puts it last; the busy one pays the slot back', async () => {
  const r = rig('borrow', 2, 1);
  r.worker();
  for (let i = 0; i < 8; i++) await r.add('A', i, 400, 10 + i);
  await until('A in both slots', () => r.now.all === 2);
  await sleep(100);
  const added = Date.now();
  await r.add('B', 0, 50, 1_000); // behind all of A's jobs in the queue's own order
  await until('B done', () => r.log.some((l) => l.tenant === 'B'));
  const b = r.log.find((l) => l.tenant === 'B');
  expect((b?.start ?? Infinity) - added).toBeLessThan(250); // an A job lasts 400 ms
  await until('every job done', () => r.log.length === 9);
  expect(r.now.max).toBe(3); // slots + burst, never more
  expect(r.now.maxByTenant.get('A')).toBe(2); // A never took the borrowed slot
  // A's own jobs kept their order.
  const a = r.log
    .filter((l) => l.tenant === 'A')
    .sort((x, y) => x.start - y.start)
    .map((l) => l.n);
  expect(a).toEqual([...a].sort((x, y) => x - y));
});

it('a tenant alone keeps every slot and no more: work conserving, nothing run twice', async () => {
  const r = rig('alone', 2, 1);
  r.worker();
  for (let i = 0; i < 6; i++) await r.add('A', i, 200, 10 + i);
  await until('every job done', () => r.log.length === 6);
  expect(r.now.maxByTenant.get('A')).toBe(2);
  expect(new Set(r.log.map((l) => l.n)).size).toBe(6);
  const span = Math.max(...r.log.map((l) => l.end)) - Math.min(...r.log.map((l) => l.start));
  expect(span).toBeLessThan(3 * 200 + 400); // three rounds of two, not six of one
});

it('closing the worker gives held jobs back to the queue instead of waiting for them', async () => {
  const r = rig('closing', 1, 1);
  const w = r.worker();
  for (let i = 0; i < 3; i++) await r.add('A', i, 600, 10 + i);
  await until('one running', () => r.now.all === 1);
  await sleep(100); // the second is fetched and held
  const t0 = Date.now();
  await w.close();
  expect(Date.now() - t0).toBeLessThan(1_500);
  expect(r.log).toHaveLength(1);
  const counts = await r.queue.getJobCounts('wait', 'prioritized', 'active', 'failed');
  expect(counts.wait + counts.prioritized).toBe(2);
  expect(counts.failed).toBe(0);
});

it('a held job goes to an idle worker after the hold time', async () => {
  const r = rig('handover', 1, 1, 300);
  r.worker();
  await r.add('A', 0, 2_000, 10);
  await r.add('A', 1, 100, 11);
  await until('one running, one held', () => r.now.all === 1);
  await sleep(100);
  r.worker(); // an idle worker beside the busy one
  await until('the second job done', () => r.log.some((l) => l.n === 1), 5_000);
  expect(r.log.find((l) => l.n === 1)?.start ?? Infinity).toBeLessThan((r.log.find((l) => l.n === 0)?.end ?? Date.now() + 2_000) - 500);
});

it('told of a job this process added, it looks at the queue at once rather than at its next tick', async () => {
  const added = new EventEmitter();
  const r = rig('nudged', 1, 1, 10_000, { pollMs: 60_000, added });
  r.worker();
  for (let i = 0; i < 3; i++) await r.add('A', i, 1_500, 10 + i);
  await until('A running, one held', () => r.now.all === 1);
  await sleep(100);
  const t0 = Date.now();
  await r.add('B', 0, 50, 1_000);
  added.emit('nudged');
  await until('B done', () => r.log.some((l) => l.tenant === 'B'), 5_000);
  expect((r.log.find((l) => l.tenant === 'B')?.start ?? Infinity) - t0).toBeLessThan(500); // no tick for a minute; A's job lasts 1.5 s
});
