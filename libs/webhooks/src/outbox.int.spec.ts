import { randomUUID } from 'node:crypto';
import { EventStore, createPool } from '@hub/event-store';
import { WebhookReceiver, createTestDatabase, type TestDatabase } from '@hub/testing';
import type { Pool } from 'pg';
import { AddressGuard } from './address-guard';
import { WebhookDeliveries } from './deliveries';
import { WebhookDispatcher } from './dispatcher';
import { WebhookEndpoints } from './endpoints';
import { WebhookOutbox } from './outbox';

// The outbox and the dispatcher on a real database, several of each at once (as several workers
// run them): one message per (endpoint, event), whatever the races; each delivered once when the
// receiver answers.

jest.setTimeout(60_000);

let db: TestDatabase;
let pool: Pool;
let receiver: WebhookReceiver;
const tenant = randomUUID();
const meta = { correlationId: 'c', actor: { type: 'system' as const, id: 'test' }, protocol: 'internal' as const };

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'webhook_outbox' });
  const owner = createPool(db.ownerUrl, { max: 1 });
  await owner.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [tenant, 'w']);
  await owner.end();
  pool = createPool(db.url, { max: 8 });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await pool?.end();
  await receiver?.close();
  await db?.drop();
});

it('three outboxes stepping at once write one message per subscribed event, and two dispatchers deliver each once', async () => {
  const outboxes = [0, 1, 2].map(() => new WebhookOutbox(pool, { publicUrl: 'http://hub.example', linkTtlMs: 60_000, batchSize: 7 }));
  await outboxes[0].checkpoint(); // starts at the head: nothing before this
  const { endpoint, secret } = await new WebhookEndpoints(pool).create(tenant, { url: receiver.url('/o'), events: ['session.opened'], description: null });
  const store = new EventStore(pool);
  const n = 40;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.append(
        tenant,
        `session-o${i}`,
        [
          { type: 'SessionOpened', data: { sessionId: `o${i}`, openedVia: 'transport' }, metadata: meta },
          { type: 'TurnFailed', data: { turnId: 't', code: 'X', message: 'not subscribed', retryable: false }, metadata: meta },
        ],
        { expectedVersion: 'any' },
      ),
    ),
  );
  // They step together until every event is written (the outbox reads settled events only, and a
  // transaction open anywhere on the server, another test file on a busy CI machine, holds
  // settling back), then a few rounds more in which nothing may be written twice.
  const counter = createPool(db.ownerUrl, { max: 1 });
  const written = async () =>
    Number((await counter.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_messages WHERE endpoint_id = $1', [endpoint.id])).rows[0].n);
  for (const until = Date.now() + 20_000; (await written()) < n && Date.now() < until;) await Promise.all(outboxes.map((o) => o.step()));
  for (let round = 0; round < 3; round++) await Promise.all(outboxes.map((o) => o.step()));
  await counter.end();
  const { rows } = await pool
    .query<{ n: string; positions: string }>(`SELECT count(*)::text AS n, count(DISTINCT event_position)::text AS positions FROM webhook_messages`)
    .catch(() => ({ rows: [] as { n: string; positions: string }[] }));
  // Under row-level security the apps' role sees nothing unscoped: read as the owner instead.
  const owner = createPool(db.ownerUrl, { max: 1 });
  const seen = await owner.query<{ n: string; positions: string; types: string[] }>(
    `SELECT count(*)::text AS n, count(DISTINCT event_position)::text AS positions, array_agg(DISTINCT event_type) AS types FROM webhook_messages WHERE endpoint_id = $1`,
    [endpoint.id],
  );
  const opened = await owner.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'SessionOpened' AND tenant_id = $1`, [tenant]);
  await owner.end();
  expect(rows.map((r) => r.n)).toEqual(['0']); // the unscoped read really saw nothing
  expect(seen.rows[0]).toEqual({ n: String(n), positions: String(n), types: ['session.opened'] });
  expect(opened.rows[0].n).toBe(String(n));

  const dispatchers = [0, 1].map(
    () =>
      new WebhookDispatcher(pool, {
        schedule: [1000],
        timeoutMs: 2000,
        guard: new AddressGuard(['127.0.0.0/8']),
        perEndpoint: 4,
        disableAfterMs: 60_000,
        log: () => undefined,
      }),
  );
  const deadline = Date.now() + 30_000;
  while (receiver.at('/o').length < n && Date.now() < deadline) {
    await Promise.all(dispatchers.map((d) => d.look()));
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(dispatchers.map((d) => d.drain()));
  const ids = receiver.at('/o').map((r) => String(r.headers['webhook-id']));
  expect(ids).toHaveLength(n);
  expect(new Set(ids).size).toBe(n);
  for (const r of receiver.at('/o')) expect(WebhookReceiver.verify(secret, r).type).toBe('session.opened');
});

it('an endpoint failing every attempt for longer than the setting is disabled, saying since when', async () => {
  const { endpoint } = await new WebhookEndpoints(pool).create(tenant, { url: receiver.url('/down'), events: ['*'], description: null });
  receiver.answer('/down', () => ({ status: 503 }));
  const dispatcher = new WebhookDispatcher(pool, {
    schedule: Array(20).fill(200),
    timeoutMs: 2000,
    guard: new AddressGuard(['127.0.0.0/8']),
    perEndpoint: 1,
    disableAfterMs: 1000,
    log: () => undefined,
  });
  await new WebhookDeliveries(pool).sendTest(tenant, endpoint.id);
  const endpoints = new WebhookEndpoints(pool);
  const deadline = Date.now() + 15_000;
  while ((await endpoints.get(tenant, endpoint.id))?.enabled && Date.now() < deadline) {
    await dispatcher.look();
    await new Promise((r) => setTimeout(r, 50));
  }
  await dispatcher.drain();
  const after = await endpoints.get(tenant, endpoint.id);
  expect(after).toEqual(expect.objectContaining({ enabled: false, disabledReason: expect.stringMatching(/^failing since .* without a success$/) }));
  expect(receiver.at('/down').length).toBeGreaterThan(2);
});

it('writes an escalation as two messages of one event: the expiry of the first approval, the request of the new one (ADR 0050)', async () => {
  const { endpoint } = await new WebhookEndpoints(pool).create(tenant, {
    url: receiver.url('/esc'),
    events: ['approval.expired', 'approval.requested'],
    description: null,
  });
  const request = { turnId: 't', toolCallId: 'c', toolName: 'refund', input: {}, riskTier: 'high', reason: 'asks', deadlineAt: null };
  await new EventStore(pool).append(
    tenant,
    'session-esc',
    [{ type: 'ApprovalRequested', data: { ...request, approvalId: 'a.escalated', escalatedFrom: 'a' }, metadata: meta }],
    { expectedVersion: 'any' },
  );
  const outbox = new WebhookOutbox(pool, { publicUrl: 'http://hub.example', linkTtlMs: 60_000 });
  const owner = createPool(db.ownerUrl, { max: 1 });
  const messages = () =>
    owner.query<{ event_type: string; event_position: string; approval: string }>(
      `SELECT event_type, event_position::text, payload->'data'->>'approvalId' AS approval FROM webhook_messages WHERE endpoint_id = $1 ORDER BY event_type`,
      [endpoint.id],
    );
  for (const until = Date.now() + 20_000; (await messages()).rows.length < 2 && Date.now() < until;) await outbox.step();
  await outbox.step(); // and nothing twice
  const { rows } = await messages();
  await owner.end();
  expect(rows.map((r) => [r.event_type, r.approval])).toEqual([
    ['approval.expired', 'a'],
    ['approval.requested', 'a.escalated'],
  ]);
  expect(new Set(rows.map((r) => r.event_position)).size).toBe(1);
});
