import { randomUUID } from 'node:crypto';
import { DomainError } from '@hub/domain';
import { appendWithRetry } from './append-retry';
import { EventStore } from './event-store';
import { beginAs, tenantScope } from './scope';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';
import type { NewEvent } from './types';

const meta = { correlationId: 'corr-1', causationId: 'cause-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
const ev = (n: number, extra: Record<string, unknown> = {}): NewEvent => ({
  type: 'Thing',
  data: { n, ...extra },
  metadata: meta,
});

async function errorOf(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(e)}`);
  return e;
}

describe('EventStore', () => {
  let db: ScratchDatabase;
  let store: EventStore;
  const tenant = randomUUID();

  beforeAll(async () => {
    db = await createScratchDatabase('event_store');
    store = new EventStore(db.pool, { maxEventBytes: 1024 });
  });
  afterAll(() => db.drop());

  async function count(where = 'true'): Promise<number> {
    const { rows } = await db.ownerPool.query(`SELECT count(*)::int AS n FROM events WHERE ${where}`);
    return rows[0].n;
  }

  it('appends with stream positions from 1 and reads back what it returned', async () => {
    const a = await store.append(tenant, 's-basic', [ev(1), ev(2)], { expectedVersion: 'no_stream' });
    expect(a.nextExpectedVersion).toBe(2);
    expect(a.duplicate).toBe(false);
    expect(a.events.map((e) => e.streamPosition)).toEqual([1, 2]);
    expect(a.events[1].globalPosition).toBe(a.events[0].globalPosition + 1);
    const b = await store.append(tenant, 's-basic', [ev(3)], { expectedVersion: 2 });
    const read = await store.readStream(tenant, 's-basic');
    expect(read.version).toBe(3);
    expect(read.events).toEqual([...a.events, ...b.events]);
    expect(read.events[0]).toMatchObject({ tenantId: tenant, streamId: 's-basic', type: 'Thing', data: { n: 1 }, metadata: meta });
    expect(new Date(read.events[0].createdAt).toISOString()).toBe(read.events[0].createdAt);
    expect(await store.readStream(tenant, 's-basic', { fromVersion: 1, maxCount: 1 })).toEqual({ version: 3, events: [a.events[1]] });
    expect(await store.readStream(tenant, 'nope')).toEqual({ version: 0, events: [] });
  });

  it('keeps data exactly as written, key order included', async () => {
    const data = { z: 1, a: { y: [1, 'two', null, true], b: 'ünïcødé ✓' }, m: 2 };
    await store.append(tenant, 's-order', [{ type: 'T', data, metadata: meta }], { expectedVersion: 'any' });
    const { rows } = await db.ownerPool.query(`SELECT data::text AS t FROM events WHERE stream_id = 's-order'`);
    expect(rows[0].t).toBe(JSON.stringify(data));
    const [read] = (await store.readStream(tenant, 's-order')).events;
    expect(JSON.stringify(read.data)).toBe(JSON.stringify(data));
  });

  it.each([
    ['no_stream', 's-ev-1', 1],
    ['exists', 's-ev-new', 0],
    [5, 's-ev-1', 1],
    [0, 's-ev-1', 1],
  ] as const)('rejects expectedVersion %p on %s (at %p) with a typed conflict', async (expected, stream, actual) => {
    if ((await store.streamVersion(tenant, 's-ev-1')) === 0) {
      await store.append(tenant, 's-ev-1', [ev(1)], { expectedVersion: 'no_stream' });
    }
    const before = await count();
    const e = await errorOf(store.append(tenant, stream, [ev(9)], { expectedVersion: expected }));
    expect(e.code).toBe('STREAM_VERSION_CONFLICT');
    expect(e.details).toMatchObject({ expected, actual });
    expect(await count()).toBe(before);
  });

  it('lets exactly one of 50 concurrent appenders win each version', async () => {
    const stream = 's-race';
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => store.append(tenant, stream, [ev(i)], { expectedVersion: 0 })));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(DomainError);
      expect((r.reason as DomainError).code).toBe('STREAM_VERSION_CONFLICT');
      expect((r.reason as DomainError).details).toMatchObject({ expected: 0, actual: 1 });
    }
    expect(await count(`stream_id = '${stream}'`)).toBe(1);
  });

  it('lands all 50 concurrent appenders with retries, versions 1..50 contiguous', async () => {
    const stream = 's-retry';
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        appendWithRetry(
          async () => {
            const version = await store.streamVersion(tenant, stream);
            return store.append(tenant, stream, [ev(i)], { expectedVersion: version });
          },
          { attempts: 100 },
        ),
      ),
    );
    const { version, events } = await store.readStream(tenant, stream);
    expect(version).toBe(50);
    expect(events.map((e) => e.streamPosition)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => (e.data as { n: number }).n)).size).toBe(50);
    const globals = events.map((e) => e.globalPosition);
    expect([...globals].sort((x, y) => x - y)).toEqual(globals);
  });

  it('appendWithRetry gives up after the given number of attempts', async () => {
    let calls = 0;
    const conflict = new DomainError('STREAM_VERSION_CONFLICT', 'x', {});
    await expect(
      appendWithRetry(
        async () => {
          calls++;
          throw conflict;
        },
        { attempts: 3, baseDelayMs: 1 },
      ),
    ).rejects.toBe(conflict);
    expect(calls).toBe(3);
    const other = new Error('boom');
    calls = 0;
    await expect(
      appendWithRetry(
        async () => {
          calls++;
          throw other;
        },
        { attempts: 3 },
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });

  it('returns the first result for a repeated idempotency key and appends nothing', async () => {
    const first = await store.append(tenant, 's-idem', [ev(1), ev(2)], { expectedVersion: 'no_stream', idempotencyKey: 'k1' });
    const before = await count();
    // Stale expected version and different events: the key wins.
    const again = await store.append(tenant, 's-idem', [ev(7)], { expectedVersion: 'no_stream', idempotencyKey: 'k1' });
    expect(again).toEqual({ ...first, duplicate: true });
    expect(await count()).toBe(before);
    // The key is per tenant.
    const other = await store.append(randomUUID(), 's-idem', [ev(1)], { expectedVersion: 'no_stream', idempotencyKey: 'k1' });
    expect(other.duplicate).toBe(false);
  });

  it('makes the second of two racing identical appends wait and return the first result', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const opts = { expectedVersion: 'no_stream' as const, idempotencyKey: 'race-key' };
    let reached!: () => void;
    const firstWritten = new Promise<void>((r) => (reached = r));
    const first = store.append(tenant, 's-idem-race', [ev(1)], {
      ...opts,
      onBeforeCommit: () => {
        reached();
        return held;
      },
    });
    await firstWritten;
    let secondDone = false;
    const second = store.append(tenant, 's-idem-race', [ev(1)], opts).finally(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(secondDone).toBe(false);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.duplicate).toBe(false);
    expect(b).toEqual({ ...a, duplicate: true });
    expect(await count(`stream_id = 's-idem-race'`)).toBe(1);
  });

  it('frees the key when the first append failed', async () => {
    await store.append(tenant, 's-idem-fail', [ev(1)], { expectedVersion: 'any' });
    await expect(store.append(tenant, 's-idem-fail', [ev(2)], { expectedVersion: 0, idempotencyKey: 'k-fail' })).rejects.toThrow(DomainError);
    const ok = await store.append(tenant, 's-idem-fail', [ev(2)], { expectedVersion: 1, idempotencyKey: 'k-fail' });
    expect(ok).toMatchObject({ duplicate: false, nextExpectedVersion: 2 });
  });

  it.each([
    ['oversized', [ev(1), ev(2, { blob: 'x'.repeat(2000) })], 'EVENT_TOO_LARGE', /event Thing is \d+ bytes, more than the 1024 allowed/],
    ['a function', [ev(1, { f: () => 1 })], 'INVALID_EVENT', /data\.f is a function/],
    ['a bigint', [ev(1, { b: BigInt(1) })], 'INVALID_EVENT', /data\.b is a bigint/],
    ['NaN', [ev(1, { x: NaN })], 'INVALID_EVENT', /data\.x is NaN/],
    ['a Date', [ev(1, { d: new Date(0) })], 'INVALID_EVENT', /data\.d is not a plain object/],
    ['U+0000', [ev(1, { s: 'a\u0000b' })], 'INVALID_EVENT', /U\+0000/],
    [
      'a cycle',
      [
        (() => {
          const o: Record<string, unknown> = {};
          o.self = o;
          return { type: 'Thing', data: o, metadata: meta };
        })(),
      ],
      'INVALID_EVENT',
      /circular/,
    ],
    ['a bad eventId', [{ ...ev(1), eventId: 'not-a-uuid' }], 'INVALID_EVENT', /eventId must be a UUID/],
  ])('refuses %s with a typed error and writes nothing', async (_what, events, code, message) => {
    const before = await count();
    const e = await errorOf(store.append(tenant, 's-bad', events as NewEvent[], { expectedVersion: 'any' }));
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
    expect(await count()).toBe(before);
    expect(await store.streamVersion(tenant, 's-bad')).toBe(0);
  });

  it('reports a reused eventId as INVALID_EVENT and writes nothing of that append', async () => {
    const eventId = randomUUID();
    await store.append(tenant, 's-eid', [{ ...ev(1), eventId }], { expectedVersion: 'any' });
    const e = await errorOf(store.append(tenant, 's-eid', [ev(2), { ...ev(3), eventId }], { expectedVersion: 'any' }));
    expect(e.details).toMatchObject({ reason: 'DUPLICATE_EVENT_ID' });
    expect((await store.readStream(tenant, 's-eid')).version).toBe(1);
  });

  // readAll and headPosition see only settled events: a transaction still open anywhere on the
  // server (other test files share it) holds them back briefly. Wait for that, then assert.
  async function settled(tenantId: string, position: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while ((await store.headPosition(tenantId)) < position) {
      if (Date.now() > deadline) throw new Error(`position ${position} not settled within 15 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('never reads across tenants', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await store.append(a, 'shared-name', [ev(1)], { expectedVersion: 'any' });
    const lastB = await store.append(b, 'shared-name', [ev(2), ev(3)], { expectedVersion: 'any' });
    await store.append(a, 'shared-name', [ev(4)], { expectedVersion: 'any' });
    await settled(b, lastB.events[1].globalPosition);
    const readA = await store.readStream(a, 'shared-name');
    expect(readA.version).toBe(2);
    expect(readA.events.map((e) => e.tenantId)).toEqual([a, a]);
    const allB = await store.readAll(b, { after: 0, limit: 100 });
    expect(allB.map((e) => (e.data as { n: number }).n)).toEqual([2, 3]);
    expect(allB.every((e) => e.tenantId === b)).toBe(true);
    expect(await store.headPosition(b)).toBe(allB[1].globalPosition);
    expect(await store.headPosition(randomUUID())).toBe(0);
  });

  it('readAll pages by global position', async () => {
    const t = randomUUID();
    let last = 0;
    for (let i = 0; i < 5; i++) last = (await store.append(t, `p-${i % 2}`, [ev(i)], { expectedVersion: 'any' })).events[0].globalPosition;
    await settled(t, last);
    const page1 = await store.readAll(t, { after: 0, limit: 3 });
    const page2 = await store.readAll(t, { after: page1[2].globalPosition, limit: 3 });
    expect([...page1, ...page2].map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses a tenant id that is not a UUID', async () => {
    expect((await errorOf(store.readAll('tenant-1', { after: 0, limit: 1 }))).code).toBe('INVALID_COMMAND');
  });

  it('hands out global positions in transaction-id order (what makes a position cursor safe)', async () => {
    const t = randomUUID();
    await Promise.all(Array.from({ length: 60 }, (_, i) => store.append(t, `order-${i % 7}`, [ev(i), ev(i)], { expectedVersion: 'any' })));
    const { rows } = await db.ownerPool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE transaction_id < prev)::int AS inversions
         FROM (SELECT transaction_id, lag(transaction_id) OVER (ORDER BY global_position) AS prev FROM events WHERE tenant_id = $1) x`,
      [t],
    );
    expect(rows[0].n).toBe(120);
    expect(rows[0].inversions).toBe(0);
  });

  it('refuses to allocate positions once the transaction has an xid', async () => {
    const client = await db.pool.connect();
    try {
      await beginAs(client, tenantScope(tenant));
      await client.query(`INSERT INTO streams (tenant_id, stream_id, version) VALUES ($1, 'x', 0)`, [tenant]);
      await expect(client.query('SELECT hub_allocate_positions(1)')).rejects.toThrow(/must be the first write/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("countUnlessExists: the tenant's streams of a prefix for a new id, null for one that exists, another tenant's not counted", async () => {
    const t = randomUUID();
    for (const id of ['session-a', 'session-b', 'other-c']) await store.append(t, id, [ev(1)], { expectedVersion: 'no_stream' });
    await store.append(randomUUID(), 'session-z', [ev(1)], { expectedVersion: 'no_stream' });
    expect(await store.countUnlessExists(t, 'session-', 'session-new')).toBe(2);
    expect(await store.countUnlessExists(t, 'session-', null)).toBe(2);
    expect(await store.countUnlessExists(t, 'session-', 'session-a')).toBeNull();
    expect(await store.countUnlessExists(randomUUID(), 'session-', 'session-a')).toBe(0);
  });
});
