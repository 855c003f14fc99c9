import { randomUUID } from 'node:crypto';
import { A2A_PUSH_CONFIG_SET } from '@hub/domain';
import { EventStore, asSystem, createPool } from '@hub/event-store';
import { a2aPushStreamId } from '@hub/protocol-a2a';
import { WebhookReceiver, createTestDatabase, type TestDatabase } from '@hub/testing';
import { AddressGuard } from '@hub/webhooks';
import type { Pool } from 'pg';
import { A2aPushDispatcher } from './dispatcher';
import { A2aPushOutbox } from './outbox';

// The push outbox and dispatcher on a real database, several of each at once (as several
// workers run them): one notification per (config, event, frame) whatever the races, each
// delivered once and in the log's order per config; a claim whose process died is taken again
// once its lease ends (at least once).

jest.setTimeout(60_000);

let db: TestDatabase;
let pool: Pool;
let receiver: WebhookReceiver;
const tenant = randomUUID();
const meta = { correlationId: 'c', actor: { type: 'system' as const, id: 'test' }, protocol: 'a2a' as const };
const guard = new AddressGuard(['127.0.0.0/8']);
/** The test reads as the workers do (row-level security hides the table from a query with no scope). */
const sys = () => asSystem(pool, 'webhooks');
const dispatcher = () => new A2aPushDispatcher(pool, { schedule: [200, 200], timeoutMs: 2_000, guard, log: () => undefined });

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'a2a_push' });
  const owner = createPool(db.ownerUrl, { max: 1 });
  await owner.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [tenant, 'p']);
  await owner.end();
  pool = createPool(db.url, { max: 8 });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await pool?.end();
  await receiver?.close();
  await db?.drop();
});

/** A turn with a push config set after its request: requested, config, started, completed. */
async function turnWithConfig(store: EventStore, sessionId: string): Promise<void> {
  const ev = (type: string, data: object) => ({ type, data, metadata: meta });
  await store.append(
    tenant,
    `session-${sessionId}`,
    [
      ev('SessionOpened', { sessionId, openedVia: 'a2a' }),
      ev('TurnRequested', { turnId: 't1', userMessageId: 't1:u', prompt: 'hi', context: {}, busyPolicy: 'enqueue' }),
    ],
    { expectedVersion: 'any' },
  );
  await store.append(
    tenant,
    a2aPushStreamId(sessionId),
    [ev(A2A_PUSH_CONFIG_SET, { configId: 'c1', turnId: 't1', url: receiver.url(`/${sessionId}`), token: `tok-${sessionId}`, authentication: null })],
    { expectedVersion: 'any' },
  );
  await store.append(
    tenant,
    `session-${sessionId}`,
    [
      ev('TurnStarted', { turnId: 't1' }),
      ev('TurnCompleted', { turnId: 't1', text: '', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
    ],
    { expectedVersion: 'any' },
  );
}

const stateOf = (body: string) => {
  const f = JSON.parse(body) as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
  return f.task?.status.state ?? f.statusUpdate?.status.state;
};

it('three outboxes stepping at once write each notification once; two dispatchers deliver each once, in order, with the token', async () => {
  const outboxes = [0, 1, 2].map(() => new A2aPushOutbox(pool, 3));
  await outboxes[0].checkpoint(); // starts at the head
  const store = new EventStore(pool);
  const sessions = Array.from({ length: 6 }, (_, i) => `s${i}`);
  await Promise.all(sessions.map((s) => turnWithConfig(store, s)));
  // The outbox reads settled events only, and a transaction open anywhere on the server (other
  // test files on a busy CI machine) holds settling back: step until all are written, then a few
  // more rounds at once, in which nothing may be written twice.
  const written = async () => (await sys().query<{ n: number }>('SELECT count(*)::int AS n FROM a2a_push_messages')).rows[0].n;
  for (const until = Date.now() + 20_000; (await written()) < sessions.length * 3 && Date.now() < until;) await Promise.all(outboxes.map((o) => o.step()));
  for (let round = 0; round < 3; round++) await Promise.all(outboxes.map((o) => o.step()));
  // Per session: the task when the config was set (submitted), started (working), completed.
  expect(await written()).toBe(sessions.length * 3);
  const ds = [dispatcher(), dispatcher()];
  const deadline = Date.now() + 20_000;
  while (receiver.received.length < sessions.length * 3 && Date.now() < deadline) {
    await Promise.all(ds.map((d) => d.look()));
    await new Promise((r) => setTimeout(r, 30));
  }
  await Promise.all(ds.map((d) => d.drain()));
  for (const s of sessions) {
    const got = receiver.at(`/${s}`);
    expect(got.map((r) => stateOf(r.body))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(got.every((r) => r.headers['x-a2a-notification-token'] === `tok-${s}`)).toBe(true);
  }
  const { rows: states } = await sys().query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM a2a_push_messages GROUP BY status');
  expect(states).toEqual([{ status: 'succeeded', n: sessions.length * 3 }]);
});

it('a notification claimed by a process that died is claimed again when its lease ends, with the same webhook-id', async () => {
  const store = new EventStore(pool);
  const outbox = new A2aPushOutbox(pool);
  await turnWithConfig(store, 'dead');
  const written = async () => (await sys().query<{ n: number }>("SELECT count(*)::int AS n FROM a2a_push_messages WHERE task_id = 'dead/t1'")).rows[0].n;
  for (const until = Date.now() + 20_000; (await written()) < 3 && Date.now() < until;) await outbox.step();
  // A process claimed the first notification and died: its lease runs, nobody records it.
  const { rows: claimed } = await sys().query<{ id: string }>(
    `UPDATE a2a_push_messages SET leased_until = now() + interval '700 milliseconds', attempts = attempts + 1
      WHERE id = (SELECT id FROM a2a_push_messages WHERE task_id = 'dead/t1' ORDER BY event_position, frame LIMIT 1) RETURNING id`,
  );
  const d = dispatcher();
  expect(await d.look()).toBe(0); // leased, and the ones after it wait behind it
  await new Promise((r) => setTimeout(r, 800));
  for (const deadline = Date.now() + 10_000; receiver.at('/dead').length < 3 && Date.now() < deadline;) {
    await d.look();
    await new Promise((r) => setTimeout(r, 30));
  }
  await d.drain();
  const got = receiver.at('/dead');
  expect(got.map((r) => stateOf(r.body))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  expect(got[0].headers['webhook-id']).toBe(claimed[0].id);
  const { rows } = await sys().query<{ attempts: number }>('SELECT attempts FROM a2a_push_messages WHERE id = $1', [claimed[0].id]);
  expect(rows[0].attempts).toBe(2);
});
