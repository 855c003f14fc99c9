import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Principal } from '@hub/auth';
import { EventStore, createPool } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { createSession, listSessions } from './acp-sessions';

// ACP `session/list` for a client key (issue 16): the key's own sessions only. It used to take the
// tenant's 200 newest sessions and then drop the other keys' ones, so a client key whose sessions
// were older than 200 of its colleagues' saw an empty list.

const T = randomUUID();
let db: TestDatabase;
let pool: Pool;
let store: EventStore;

const key = (keyPrefix: string): Principal => ({ tenantId: T, keyId: randomUUID(), keyPrefix, keyName: keyPrefix, role: 'client' });
const turnRequested = (keyPrefix: string) => ({
  type: 'TurnRequested',
  data: { turnId: 't1', userMessageId: 't1:u', prompt: 'p', context: {}, busyPolicy: 'enqueue' },
  metadata: { correlationId: randomUUID(), protocol: 'transport', actor: { type: 'api_key', id: keyPrefix } },
});

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'acp_sessions' });
  pool = createPool(db.url, { max: 4 });
  store = new EventStore(pool);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

it("a client key's list holds every session it opened, however many newer ones other keys have", async () => {
  // The client key's own: one made by session/new (not prompted), one opened over the transport.
  const made = await createSession(store, key('hub_mine'), '/work/mine', randomUUID());
  await store.append(T, 'session-mine-transport', [turnRequested('hub_mine')] as never, { expectedVersion: 'no_stream' });
  // Then 250 newer sessions of another key, of both kinds.
  for (let i = 0; i < 125; i++) {
    await createSession(store, key('hub_other'), '/work/mine', randomUUID());
    await store.append(T, `session-other-${i}`, [turnRequested('hub_other')] as never, { expectedVersion: 'no_stream' });
  }
  const mine = await listSessions(store, T, null, 'hub_mine');
  expect(mine.map((s) => s.sessionId).sort()).toEqual([made, 'mine-transport'].sort());
  expect(mine.find((s) => s.sessionId === made)?.cwd).toBe('/work/mine');
  // Filtered by cwd too: only the one created with it.
  expect((await listSessions(store, T, '/work/mine', 'hub_mine')).map((s) => s.sessionId)).toEqual([made]);
  // Every other role reads the tenant's 200 newest.
  const all = await listSessions(store, T, null);
  expect(all).toHaveLength(200);
  expect(all.map((s) => s.sessionId)).not.toContain(made);
});
