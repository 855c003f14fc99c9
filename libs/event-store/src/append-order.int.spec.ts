import { randomUUID } from 'node:crypto';
import { appendWithRetry } from './append-retry';
import { EventStore } from './event-store';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';
import type { ExpectedVersion, NewEvent } from './types';

const meta = { correlationId: 'corr-order', causationId: 'cause-order' };
const ev = (n: number): NewEvent => ({ type: 'Thing', data: { n }, metadata: meta });

/**
 * Stream order and global order must agree in every stream: a live reader (by global position)
 * and a replay (by stream position) see one order. An `'any'` append (e.g. a reward recorded
 * beside the next turn) must not take a stream position after an append that took a later
 * global position.
 */
describe('append: stream order equals global order', () => {
  let db: ScratchDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createScratchDatabase('append_order');
    store = new EventStore(db.pool);
  });
  afterAll(() => db.drop());

  /** Pairs of neighbouring events of one stream whose global order is the reverse of their stream order. */
  async function inversions(tenantId: string): Promise<{ n: number; inversions: number }> {
    const { rows } = await db.ownerPool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE global_position < prev)::int AS inversions
         FROM (SELECT global_position,
                      lag(global_position) OVER (PARTITION BY stream_id ORDER BY stream_position) AS prev
                 FROM events WHERE tenant_id = $1) x`,
      [tenantId],
    );
    return rows[0];
  }

  async function race(tenantId: string, expected: () => ExpectedVersion | 'versioned'): Promise<void> {
    const streams = 3;
    await Promise.all(
      Array.from({ length: 240 }, async (_, i) => {
        const stream = `race-${i % streams}`;
        const how = expected();
        // An idempotency key puts a statement between the position allocation and the stream
        // lock, the window an unordered append could be overtaken in.
        const key = `k-${i}`;
        if (how !== 'versioned') return store.append(tenantId, stream, [ev(i), ev(i)], { expectedVersion: how, idempotencyKey: key });
        return appendWithRetry(
          async () => {
            const { version } = await store.readStream(tenantId, stream, { fromVersion: 1_000_000 });
            return store.append(tenantId, stream, [ev(i)], { expectedVersion: version, idempotencyKey: key });
          },
          { attempts: 500, baseDelayMs: 1 },
        );
      }),
    );
  }

  it("keeps them equal under racing 'any' appends", async () => {
    const t = randomUUID();
    await store.append(t, 'race-0', [ev(-1)], { expectedVersion: 'no_stream' });
    await race(t, () => 'any');
    const r = await inversions(t);
    expect(r.n).toBe(481);
    expect(r.inversions).toBe(0);
  });

  it("keeps them equal when 'any' appends race versioned ones and 'exists' (a reward beside the next turn)", async () => {
    const t = randomUUID();
    for (let s = 0; s < 3; s++) await store.append(t, `race-${s}`, [ev(-1)], { expectedVersion: 'no_stream' });
    let i = 0;
    await race(t, () => (['any', 'versioned', 'exists'] as const)[i++ % 3] as ExpectedVersion | 'versioned');
    const r = await inversions(t);
    expect(r.inversions).toBe(0);
  });
});
