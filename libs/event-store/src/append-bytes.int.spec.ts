import { randomUUID } from 'node:crypto';
import { EventStore } from './event-store';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// A tenant's `eventBytesPerDay` limit (issue 16) counts what the log stores: the bytes of each
// event's `data` and `metadata` as written, reported by the store once the append committed.

const meta = { correlationId: 'c-1', actor: { type: 'system' as const, id: 'test' } };

describe('EventStore: bytes appended', () => {
  let db: ScratchDatabase;
  const reported: { tenantId: string; bytes: number }[] = [];
  let store: EventStore;

  beforeAll(async () => {
    db = await createScratchDatabase('append_bytes');
    store = new EventStore(db.pool, { onAppended: (tenantId, bytes) => reported.push({ tenantId, bytes }) });
  });
  afterAll(() => db.drop());
  beforeEach(() => reported.splice(0));

  /** What Postgres holds for the tenant: the stored text of data and metadata, in bytes (read behind the store's back, as the owner). */
  async function storedBytes(tenantId: string): Promise<number> {
    const { rows } = await db.ownerPool.query<{ n: string }>(
      `SELECT coalesce(sum(octet_length(data::text) + octet_length(metadata::text)), 0) AS n FROM events WHERE tenant_id = $1`,
      [tenantId],
    );
    return Number(rows[0].n);
  }

  it('reports each committed append with the bytes Postgres stores for it, multi-byte text included', async () => {
    const tenant = randomUUID();
    await store.append(
      tenant,
      's-1',
      [
        { type: 'T', data: { text: 'ünïcødé ✓ 日本' }, metadata: meta },
        { type: 'T', data: { n: 2 }, metadata: meta },
      ],
      { expectedVersion: 'no_stream' },
    );
    await store.append(tenant, 's-2', [{ type: 'T', data: { n: 3 }, metadata: meta }], { expectedVersion: 'any' });
    expect(reported.map((r) => r.tenantId)).toEqual([tenant, tenant]);
    expect(reported.reduce((n, r) => n + r.bytes, 0)).toBe(await storedBytes(tenant));
    expect(reported[0].bytes).toBeGreaterThan(0);
  });

  it('reports nothing for an append that stored nothing: a repeat of an idempotent append, a refused one', async () => {
    const tenant = randomUUID();
    const once = () => store.append(tenant, 's-idem', [{ type: 'T', data: { n: 1 }, metadata: meta }], { expectedVersion: 'any', idempotencyKey: 'k-1' });
    await once();
    expect(reported).toHaveLength(1);
    expect((await once()).duplicate).toBe(true);
    await expect(store.append(tenant, 's-idem', [{ type: 'T', data: { n: 2 }, metadata: meta }], { expectedVersion: 99 })).rejects.toThrow(/version/);
    expect(reported).toHaveLength(1);
    expect(reported[0].bytes).toBe(await storedBytes(tenant));
  });

  it('a counter that throws does not fail the append: the events are committed', async () => {
    const tenant = randomUUID();
    const failing = new EventStore(db.pool, {
      onAppended: () => {
        throw new Error('counter down');
      },
    });
    const result = await failing.append(tenant, 's-x', [{ type: 'T', data: { n: 1 }, metadata: meta }], { expectedVersion: 'any' });
    expect(result.events).toHaveLength(1);
    expect(await storedBytes(tenant)).toBeGreaterThan(0);
  });
});
