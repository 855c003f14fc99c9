import { randomUUID } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { EventStore, createPool } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { applyBatch, readsOf } from './apply-batch';
import { eraseSession } from './erase-session';
import { sessionsProjection } from './folds/sessions';
import { PROJECTION_LOCK_CLASS } from './leadership';
import type { ProjectionDef } from './projection';
import { projectionStatus } from './status';
import { ensureCheckpoint, readBatch, readCheckpoint } from './store';
import { seedTenant } from './testing/seed';
import { waitProjected } from './wait-projected';

// An erasure deletes a session's read rows in its own transaction, yet a projection batch read
// before that commit writes them back when it commits after it. waitProjected is what an erasure's
// answer waits on: it holds until the projection's checkpoint passes the tombstone, at which point
// the rows are gone for good.

const def = sessionsProjection as unknown as ProjectionDef;
const T = randomUUID();
let db: TestDatabase;
let pool: Pool;
let owner: Pool;
let lock: Client;

async function sessionRows(): Promise<string[]> {
  const { rows } = await owner.query<{ session_id: string }>('SELECT session_id FROM read_sessions WHERE tenant_id = $1 ORDER BY session_id', [T]);
  return rows.map((r) => r.session_id);
}

/**
 * What the runner reads from where the checkpoint stands, up to the log's head: the read returns
 * settled events only (older than every transaction still open on the server, other tests' too),
 * so it is read again until everything appended so far is in it.
 */
async function settledBatch(): Promise<Awaited<ReturnType<typeof readBatch>>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const b = await readBatch(pool, await readCheckpoint(pool, def.name), 1000, readsOf(def));
    if (b.events.at(-1)?.globalPosition === b.visibleHead) return b;
    if (Date.now() > deadline) throw new Error(`events up to ${b.visibleHead} did not settle within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One batch of the runner's, from where the checkpoint stands. */
async function step(batch?: Awaited<ReturnType<typeof readBatch>>): Promise<void> {
  const at = await readCheckpoint(pool, def.name);
  const b = batch ?? (await settledBatch());
  expect(await applyBatch(pool, def, at, b.events)).toBe(true);
}

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'projections_wait' });
  pool = createPool(db.url, { max: 4 });
  owner = createPool(db.ownerUrl, { max: 2 });
  lock = new Client({ connectionString: db.url });
  await lock.connect();
});
afterAll(async () => {
  await lock.end();
  await Promise.all([pool.end(), owner.end()]);
  await db.drop();
});

it('a batch read before an erasure brings the rows back; waitProjected holds until the tombstone is applied', async () => {
  const store = new EventStore(pool);
  await seedTenant(store, T, { sessions: 2, turns: 2 });
  await ensureCheckpoint(pool, def.name);
  // This test is the projection's runner: it holds the runner's lock.
  await lock.query('SELECT pg_advisory_lock($1, hashtext($2))', [PROJECTION_LOCK_CLASS, def.name]);
  await step();
  expect(await sessionRows()).toEqual(['s0', 's1']);

  // More of s1 arrives; the runner reads it, and before its write commits, s1 is erased.
  await seedTenant(store, T, { sessions: 1, turns: 1, prefix: 'late' });
  await store.append(
    T,
    'session-s1',
    [
      {
        type: 'TurnRequested',
        data: { turnId: 't9', userMessageId: 't9:u', prompt: 'late', context: {}, busyPolicy: 'enqueue' },
        metadata: { correlationId: randomUUID() },
      },
    ] as never,
    { expectedVersion: 'any' },
  );
  const stale = await settledBatch();
  const erased = await eraseSession(pool, [def], {
    tenantId: T,
    sessionId: 's1',
    reason: 'request',
    actor: { type: 'api_key', id: 'k', name: 'admin' },
    correlationId: randomUUID(),
  });
  expect(await sessionRows()).toEqual(['s0']);
  await step(stale);
  // The race: the stale batch wrote s1's row back after the erasure deleted it.
  expect(await sessionRows()).toEqual(['late0', 's0', 's1']);

  expect(await waitProjected(pool, [def.name], erased.tombstoneCursor, { timeoutMs: 200 })).toBe(false);
  const waiting = waitProjected(pool, [def.name], erased.tombstoneCursor, { timeoutMs: 5_000, pollMs: 10 });
  await step();
  expect(await waiting).toBe(true);
  expect(await sessionRows()).toEqual(['late0', 's0']);
});

it('does not wait for a projection that no process runs here (nothing can write its rows), whatever other databases run', async () => {
  await lock.query('SELECT pg_advisory_unlock_all()');
  // Another database on the same server runs its own projections under the same lock keys.
  const elsewhere = new Client({ connectionString: Object.assign(new URL(db.ownerUrl), { pathname: '/postgres' }).toString() });
  await elsewhere.connect();
  try {
    await elsewhere.query('SELECT pg_advisory_lock($1, hashtext($2))', [PROJECTION_LOCK_CLASS, def.name]);
    const head = Number((await owner.query<{ h: string }>('SELECT max(global_position)::text AS h FROM events')).rows[0].h);
    const t0 = Date.now();
    expect(await waitProjected(pool, [def.name], head + 1000, { timeoutMs: 5_000 })).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((await projectionStatus(pool, [def.name]))[0].active).toBe(false);
  } finally {
    await elsewhere.end();
  }
});
