import { randomUUID } from 'node:crypto';
import { DomainError } from '@hub/domain';
import { verifyChains } from './audit';
import { EventStore } from './event-store';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';
import type { NewEvent } from './types';

const meta = { correlationId: 'corr-gc', causationId: 'cause-gc' };
const ev = (n: number): NewEvent => ({ type: 'Thing', data: { n }, metadata: meta });

/** Group commit (ADR 0030): appends ready at once share a transaction, each with its own outcome. */
describe('group commit', () => {
  let db: ScratchDatabase;
  let store: EventStore;
  const tenantA = randomUUID();
  const tenantB = randomUUID();

  beforeAll(async () => {
    db = await createScratchDatabase('group_commit');
    store = new EventStore(db.pool, { groupCommit: { maxInFlight: 1 } });
  });
  afterAll(() => db.drop());

  /** Transactions that wrote the given streams' events (one per statement that carried them). */
  async function transactionsOf(streams: string[]): Promise<number> {
    const { rows } = await db.ownerPool.query<{ n: number }>('SELECT count(DISTINCT transaction_id::text)::int AS n FROM events WHERE stream_id = ANY($1)', [
      streams,
    ]);
    return rows[0].n;
  }

  it('plans the append functions once per connection: each carries plan_cache_mode = force_generic_plan', async () => {
    // A CREATE OR REPLACE of one of them without its SET clause would silently drop it, and every
    // append would plan its INSERT again (migration 20261128030000_append_generic_plans).
    const { rows } = await db.ownerPool.query<{ name: string; config: string[] | null }>(
      `SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema() AND p.proname IN ('hub_append', 'hub_append_batch', 'hub_append_item') ORDER BY 1`,
    );
    expect(rows).toEqual(['hub_append', 'hub_append_batch', 'hub_append_item'].map((name) => ({ name, config: ['plan_cache_mode=force_generic_plan'] })));
  });

  it('commits appends of many streams and two tenants that are ready at once together, each as its tenant, in stream order', async () => {
    const streams = Array.from({ length: 40 }, (_, i) => `gc-many-${i}`);
    const results = await Promise.all(
      streams.map((s, i) => store.append(i % 2 ? tenantA : tenantB, s, [ev(i), ev(i + 100)], { expectedVersion: 'no_stream' })),
    );
    expect(results.every((r) => r.nextExpectedVersion === 2 && !r.duplicate)).toBe(true);
    // One statement went at once; the other 39 waited for it and went as one batch.
    expect(await transactionsOf(streams)).toBe(2);
    for (const [i, s] of streams.entries()) {
      const tenant = i % 2 ? tenantA : tenantB;
      const read = await store.readStream(tenant, s);
      expect(read.events).toEqual(results[i].events);
      expect(read.events.map((e) => e.data)).toEqual([{ n: i }, { n: i + 100 }]);
      expect(read.events[1].globalPosition).toBe(read.events[0].globalPosition + 1);
      // Row-level security: the other tenant sees nothing of it.
      expect((await store.readStream(tenant === tenantA ? tenantB : tenantA, s)).events).toEqual([]);
    }
    expect((await verifyChains(db.ownerPool)).broken).toEqual([]);
  });

  it('gives one append of a batch its version conflict, and commits the others', async () => {
    await store.append(tenantA, 'gc-conflict', [ev(1)], { expectedVersion: 'no_stream' });
    const first = store.append(tenantA, 'gc-lead', [ev(0)], { expectedVersion: 'any' });
    const [ok1, bad, ok2, badNew] = await Promise.allSettled([
      store.append(tenantA, 'gc-c1', [ev(1)], { expectedVersion: 'no_stream', idempotencyKey: 'gc-key-ok' }),
      store.append(tenantA, 'gc-conflict', [ev(2)], { expectedVersion: 5, idempotencyKey: 'gc-key-conflict' }),
      store.append(tenantA, 'gc-c2', [ev(3)], { expectedVersion: 'no_stream' }),
      store.append(tenantA, 'gc-never', [ev(4)], { expectedVersion: 3 }),
    ]);
    await first;
    expect(ok1.status).toBe('fulfilled');
    expect(ok2.status).toBe('fulfilled');
    expect(await transactionsOf(['gc-c1', 'gc-c2'])).toBe(1);
    for (const [r, actual] of [
      [bad, 1],
      [badNew, 0],
    ] as const) {
      expect(r.status).toBe('rejected');
      const e = (r as PromiseRejectedResult).reason as DomainError;
      expect(e).toBeInstanceOf(DomainError);
      expect(e.code).toBe('STREAM_VERSION_CONFLICT');
      expect(e.details).toMatchObject({ actual });
    }
    // Nothing of the conflicting appends stays: not their key, not a stream row at version 0.
    expect((await store.readStream(tenantA, 'gc-conflict')).version).toBe(1);
    const keys = await db.ownerPool.query('SELECT key FROM idempotency_keys WHERE key = $1', ['gc-key-conflict']);
    expect(keys.rowCount).toBe(0);
    const rows = await db.ownerPool.query('SELECT 1 FROM streams WHERE stream_id = $1', ['gc-never']);
    expect(rows.rowCount).toBe(0);
    // The conflicting key is free again: a later append may claim it.
    const again = await store.append(tenantA, 'gc-conflict', [ev(2)], { expectedVersion: 1, idempotencyKey: 'gc-key-conflict' });
    expect(again.nextExpectedVersion).toBe(2);
  });

  it('answers a repeated idempotency key in a batch with the first append, and two appends of one stream one after the other', async () => {
    const lead = store.append(tenantB, 'gc-lead-2', [ev(0)], { expectedVersion: 'any' });
    const [a, b, c, d] = await Promise.all([
      store.append(tenantB, 'gc-idem', [ev(1)], { expectedVersion: 'no_stream', idempotencyKey: 'gc-same' }),
      store.append(tenantB, 'gc-idem', [ev(1)], { expectedVersion: 'no_stream', idempotencyKey: 'gc-same' }),
      store.append(tenantB, 'gc-seq', [ev(1)], { expectedVersion: 'no_stream' }),
      store.append(tenantB, 'gc-seq', [ev(2)], { expectedVersion: 1 }),
    ]);
    await lead;
    expect(a.duplicate).toBe(false);
    expect(b.duplicate).toBe(true);
    expect(b.events).toEqual(a.events);
    expect(c.events[0].streamPosition).toBe(1);
    expect(d.events[0].streamPosition).toBe(2);
    expect(d.events[0].globalPosition).toBeGreaterThan(c.events[0].globalPosition);
    expect(await transactionsOf(['gc-idem', 'gc-seq'])).toBe(1);
  });

  it('retries a batch that Postgres refused as a whole append by append: only the bad one fails', async () => {
    const dup = randomUUID();
    await store.append(tenantA, 'gc-dup-0', [{ ...ev(0), eventId: dup }], { expectedVersion: 'any' });
    const lead = store.append(tenantA, 'gc-lead-3', [ev(0)], { expectedVersion: 'any' });
    const [ok, bad] = await Promise.allSettled([
      store.append(tenantA, 'gc-dup-1', [ev(1)], { expectedVersion: 'no_stream' }),
      store.append(tenantA, 'gc-dup-2', [{ ...ev(2), eventId: dup }], { expectedVersion: 'no_stream' }),
    ]);
    await lead;
    expect(ok.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    expect(((bad as PromiseRejectedResult).reason as DomainError).code).toBe('INVALID_EVENT');
    expect((await store.readStream(tenantA, 'gc-dup-1')).version).toBe(1);
    expect((await store.readStream(tenantA, 'gc-dup-2')).version).toBe(0);
  });

  it('wakes a listener once per batch, at its last position', async () => {
    const listener = await db.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN hub_events');
    try {
      const lead = store.append(tenantA, 'gc-lead-4', [ev(0)], { expectedVersion: 'any' });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.append(tenantA, `gc-notify-${i}`, [ev(i)], { expectedVersion: 'no_stream' })),
      );
      await lead;
      await new Promise((r) => setTimeout(r, 100));
      const last = Math.max(...results.map((r) => r.events[0].globalPosition));
      expect(heard).toHaveLength(2);
      expect(heard).toContain(String(last));
    } finally {
      await listener.query('UNLISTEN hub_events');
      listener.release();
    }
  });
});
