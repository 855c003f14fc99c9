import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { Recorded } from '@hub/domain';
import { EventStore } from './event-store';
import { EventSubscriber } from './event-subscriber';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';
import type { NewEvent, StoredEvent } from './types';

// Open transactions anywhere on the cluster hold back delivery (xids are cluster-wide), so
// the waits here are generous.
jest.setTimeout(60_000);

const meta = { correlationId: 'corr' };
const ev = (label: string): NewEvent => ({ type: 'Thing', data: { label }, metadata: meta });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('EventSubscriber', () => {
  let db: ScratchDatabase;
  let store: EventStore;
  let subscriber: EventSubscriber;

  beforeAll(async () => {
    db = await createScratchDatabase('event_subscriber');
    store = new EventStore(db.pool);
    subscriber = new EventSubscriber(db.pool, { pageSize: 4, pollIntervalMs: 500 });
    await subscriber.start();
  });
  afterAll(async () => {
    await subscriber.close();
    await db.drop();
  });

  async function positionsInTable(tenantId: string, streamId?: string): Promise<number[]> {
    const { rows } = await db.ownerPool.query<{ p: string }>(
      `SELECT global_position::text AS p FROM events WHERE tenant_id = $1 AND ($2::text IS NULL OR stream_id = $2)
        ORDER BY global_position`,
      [tenantId, streamId ?? null],
    );
    return rows.map((r) => Number(r.p));
  }

  function collect(tenantId: string, after = 0, streamId?: string) {
    const seen: Recorded<StoredEvent>[] = [];
    const sub = subscriber.subscribe({ tenantId, after, streamId }, (events) => {
      seen.push(...events);
    });
    return { seen, sub, positions: () => seen.map((e) => e.globalPosition) };
  }

  it('delivers every event once, in global order, never passing a writer still open', async () => {
    const tenant = randomUUID();
    const other = randomUUID();
    const all = collect(tenant);
    const streamOnly = collect(tenant, 0, 'fast-1');
    const otherTenant = collect(other);

    await store.append(tenant, 'before', [ev('b1'), ev('b2')], { expectedVersion: 'any' });
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    // The slow writer takes its global positions first, then stays open while others commit.
    const slow = store.append(tenant, 'slow', [ev('s1'), ev('s2')], {
      expectedVersion: 'any',
      onBeforeCommit: () => slowGate,
    });
    try {
      await sleep(100);
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.append(i % 3 === 0 ? other : tenant, `fast-${i % 2}`, [ev(`f${i}`)], { expectedVersion: 'any' })),
      );
      await sleep(1500);
      expect(await positionsInTable(tenant, 'slow')).toEqual([]);
      // While the slow writer is open, nothing after its positions may be delivered.
      expect(all.seen.map((e) => e.streamId)).toEqual(['before', 'before']);
      expect(otherTenant.seen).toEqual([]);
      await sleep(1500);
    } finally {
      releaseSlow();
    }
    await slow;

    const expected = await positionsInTable(tenant);
    expect(expected).toHaveLength(2 + 2 + 8);
    await until('all events of the tenant', () => all.seen.length >= expected.length);
    await until('the other tenant', async () => otherTenant.seen.length >= (await positionsInTable(other)).length);
    await until('the stream', async () => streamOnly.seen.length >= (await positionsInTable(tenant, 'fast-1')).length);
    await sleep(300); // would expose a duplicate delivery

    expect(all.positions()).toEqual(expected);
    expect(isStrictlyIncreasing(all.positions())).toBe(true);
    // The slow writer's events come before the faster ones that committed earlier.
    expect(all.seen.slice(2, 4).map((e) => e.streamId)).toEqual(['slow', 'slow']);
    expect(otherTenant.positions()).toEqual(await positionsInTable(other));
    expect(otherTenant.seen.every((e) => e.tenantId === other)).toBe(true);
    expect(streamOnly.positions()).toEqual(await positionsInTable(tenant, 'fast-1'));
    await Promise.all([all.sub.close(), streamOnly.sub.close(), otherTenant.sub.close()]);
  });

  it('catches up from a cursor, then follows live, without a gap or a repeat', async () => {
    const tenant = randomUUID();
    for (let i = 0; i < 10; i++) await store.append(tenant, 'cu', [ev(`e${i}`)], { expectedVersion: 'any' });
    const existing = await positionsInTable(tenant);
    const late = collect(tenant, existing[3]);
    await store.append(tenant, 'cu', [ev('live1'), ev('live2')], { expectedVersion: 'any' });
    const expected = (await positionsInTable(tenant)).slice(4);
    await until('catch-up and live events', () => late.seen.length >= expected.length);
    await sleep(300);
    expect(late.positions()).toEqual(expected);
    await late.sub.close();
  });

  it('keeps delivering after its LISTEN connection is killed', async () => {
    const tenant = randomUUID();
    const c = collect(tenant);
    await store.append(tenant, 'x', [ev('one')], { expectedVersion: 'any' });
    await until('first event', () => c.seen.length === 1);
    const killed = await db.ownerPool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    expect(killed.rowCount).toBe(1);
    await store.append(tenant, 'x', [ev('two')], { expectedVersion: 'any' });
    await until('event after the drop', () => c.seen.length === 2);
    expect(c.seen.map((e) => (e.data as { label: string }).label)).toEqual(['one', 'two']);
    await c.sub.close();
  });

  it('waits for a slow handler without losing or repeating events, and stops at close', async () => {
    const tenant = randomUUID();
    const batches: number[][] = [];
    const sub = subscriber.subscribe({ tenantId: tenant, after: 0 }, async (events) => {
      await sleep(50);
      batches.push(events.map((e) => e.globalPosition));
    });
    for (let i = 0; i < 6; i++) await store.append(tenant, 'slow-handler', [ev(`e${i}`)], { expectedVersion: 'any' });
    const expected = await positionsInTable(tenant);
    await until('slow handler', () => batches.flat().length >= expected.length);
    expect(batches.flat()).toEqual(expected);
    await sub.close();
    await store.append(tenant, 'slow-handler', [ev('after-close')], { expectedVersion: 'any' });
    await sleep(700);
    expect(batches.flat()).toEqual(expected);
  });

  it('ends a subscription whose handler throws and reports the error', async () => {
    const tenant = randomUUID();
    const errors: unknown[] = [];
    let calls = 0;
    subscriber.subscribe(
      { tenantId: tenant, after: 0 },
      () => {
        calls++;
        throw new Error('handler broke');
      },
      (e) => errors.push(e),
    );
    await store.append(tenant, 'x', [ev('a')], { expectedVersion: 'any' });
    await until('the error', () => errors.length === 1);
    await store.append(tenant, 'x', [ev('b')], { expectedVersion: 'any' });
    await sleep(700);
    expect(calls).toBe(1);
    expect(String(errors[0])).toMatch(/handler broke/);
  });

  it('with many subscriptions on many streams and tenants, gives each exactly its own events, joining and leaving mid-stream', async () => {
    const tenants = [randomUUID(), randomUUID(), randomUUID()];
    const streams = ['a', 'b', 'c', 'd'];
    const early = tenants.flatMap((t) => [collect(t), ...streams.map((s) => collect(t, 0, s))]);
    const write = (round: number) =>
      Promise.all(tenants.flatMap((t) => streams.map((s) => store.append(t, s, [ev(`${s}${round}`)], { expectedVersion: 'any' }))));
    await write(1);
    // Joins while the tail moves: from the start (catching up), and from the head (live at once).
    const late = tenants.map((t) => collect(t, 0, 'b'));
    // The log's own head: the subscriber's may be a tick behind, and would also deliver write 1.
    const fromHead = await Promise.all(tenants.map(async (t) => collect(t, await store.headPosition(t), 'c')));
    const leaving = early[1];
    await leaving.sub.close();
    const leftAt = leaving.seen.length;
    await write(2);
    await write(3);
    for (const [i, t] of tenants.entries()) {
      const expected = {
        all: await positionsInTable(t),
        ...Object.fromEntries(await Promise.all(streams.map(async (s) => [s, await positionsInTable(t, s)]))),
      };
      const mine = early.slice(i * 5, i * 5 + 5);
      await until(
        `tenant ${i}'s subscriptions to catch up`,
        () => mine[0].seen.length === expected.all.length && late[i].seen.length === expected.b.length && fromHead[i].seen.length === 2,
      );
      await sleep(300);
      expect(mine[0].positions()).toEqual(expected.all);
      streams.forEach((s, n) => {
        if (mine[n + 1] !== leaving) expect(mine[n + 1].positions()).toEqual(expected[s]);
      });
      expect(late[i].positions()).toEqual(expected.b);
      expect(fromHead[i].positions()).toEqual(expected.c.slice(1));
    }
    expect(leaving.seen.length).toBe(leftAt);
    await Promise.all([...early, ...late, ...fromHead].map((c) => c.sub.close()));
  });

  it('reports the newest settled position of a tenant', async () => {
    const tenant = randomUUID();
    expect(await subscriber.headPosition(tenant)).toBe(0);
    const r = await store.append(tenant, 'h', [ev('a'), ev('b')], { expectedVersion: 'any' });
    await until('settled head', async () => (await subscriber.headPosition(tenant)) === r.events[1].globalPosition);
  });

  it('answers the head of a tenant it follows from its ticks, without a query, never past the log', async () => {
    const tenant = randomUUID();
    const first = await store.append(tenant, 'hc', [ev('a')], { expectedVersion: 'any' });
    await until('settled', async () => (await store.headPosition(tenant)) === first.events[0].globalPosition);
    const watching = collect(tenant, first.events[0].globalPosition, 'hc');
    expect(await subscriber.headPosition(tenant)).toBe(first.events[0].globalPosition);
    const reads = countQueries('hub_read_head');
    try {
      const next = await store.append(tenant, 'hc', [ev('b'), ev('c')], { expectedVersion: 1 });
      await until('delivered', () => watching.seen.length === 2);
      // The tick that delivered them raised the head it keeps: a thousand sockets opening ask nothing.
      for (let i = 0; i < 5; i++) expect(await subscriber.headPosition(tenant)).toBe(next.events[1].globalPosition);
      expect(reads()).toBe(0);
      expect(await subscriber.headPosition(tenant)).toBeLessThanOrEqual(await store.headPosition(tenant));
    } finally {
      reads.restore();
    }
    // Once nothing follows the tenant, its head is read again (a kept one would go stale).
    await watching.sub.close();
    const again = countQueries('hub_read_head');
    await subscriber.headPosition(tenant);
    expect(again()).toBe(1);
    again.restore();
  });
});

/** Counts the queries of one named statement any pool sends until `restore()` (scoped ones go through pg's Pool.prototype.query). */
function countQueries(name: string): (() => number) & { restore(): void } {
  let n = 0;
  const original = Pool.prototype.query;
  const spy = jest.spyOn(Pool.prototype, 'query').mockImplementation(function (this: Pool, ...args: unknown[]) {
    if ((args[0] as { name?: string } | undefined)?.name === name) n++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never);
  return Object.assign(() => n, { restore: () => spy.mockRestore() });
}

function isStrictlyIncreasing(xs: number[]): boolean {
  return xs.every((x, i) => i === 0 || x > xs[i - 1]);
}
