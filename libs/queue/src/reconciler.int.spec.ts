import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { sessionStreamId, type CommandMetadata, type HubEvent } from '@hub/domain';
import { EventStore, asSystem, createPool } from '@hub/event-store';
import { CommandHandler } from '@hub/sessions';
import { TEST_REDIS_URL, createTestDatabase, uniqueQueuePrefix, type TestDatabase } from '@hub/testing';
import { HubQueues, connectionOf } from './queues';
import { TurnReconciler } from './reconciler';

// The reconciler against real Postgres and Redis, with no worker consuming: a turn is "lost"
// when the log says it runs and Redis holds no job for it (here: its keys deleted, as a Redis
// restart without AOF does).

const q = uniqueQueuePrefix('reconciler');
const conn = { redisUrl: TEST_REDIS_URL, prefix: q.prefix };
let db: TestDatabase;
let pool: ReturnType<typeof createPool>;
let store: EventStore;
let queues: HubQueues;
const tenantId = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'reconciler' });
  pool = createPool(db.url, { max: 6 });
  store = new EventStore(pool);
  queues = new HubQueues(conn);
});
afterAll(async () => {
  await queues.close();
  await pool.end();
  await db.drop();
  await q.cleanup();
});

const reconciler = () =>
  new TurnReconciler({
    log: { query: (sql, params) => asSystem(pool, 'reconciler').query(sql, params), readStream: (t, s) => store.readStream<HubEvent>(t, s) },
    queues,
    connection: conn,
    quietMs: 50,
    lockMs: 10_000,
  });

const meta = (commandId: string): CommandMetadata => ({
  commandId,
  tenantId,
  now: new Date().toISOString(),
  correlationId: 'c',
  actor: { type: 'api_key', id: 'u' },
  protocol: 'transport',
});

async function startTurn(sessionId: string): Promise<string> {
  const handler = new CommandHandler(
    { readStream: (t, s) => store.readStream<HubEvent>(t, s) as never, append: (t, s, e, o) => store.append<HubEvent>(t, s, e as never, o) as never },
    {
      scheduleTurn: async (t, s, turnId, key, reason) =>
        void (await queues.enqueue('runTurn', { tenantId: t, sessionId: s, turnId, reason, trace: { correlationId: 'c' } }, { key })),
      signalCancel: async () => undefined,
    },
  );
  const turnId = `turn-${randomUUID()}`;
  const out = await handler.handle({ type: 'SubmitTurn', sessionId, turnId, prompt: 'hi', context: {}, busyPolicy: 'enqueue' }, meta(randomUUID()));
  expect(out.ok).toBe(true);
  return turnId;
}

const quiet = () => new Promise((r) => setTimeout(r, 120));
const job = (sessionId: string, turnId: string) => ({ tenantId, sessionId, turnId, reason: 'recover' as const, trace: { correlationId: 'c' } });

it('leaves a turn whose start job is queued, and re-schedules it once Redis lost the job', async () => {
  const turnId = await startTurn('lost-1');
  await quiet();
  const r = reconciler();
  try {
    expect(await r.reconcileOnce()).toEqual([]);
    await q.cleanup();
    const recovered = await r.reconcileOnce();
    const { version } = await store.readStream(tenantId, sessionStreamId('lost-1'));
    expect(recovered).toEqual([{ tenantId, sessionId: 'lost-1', turnId, version }]);
    expect(await queues.jobState('runTurn', job('lost-1', turnId), `recover:${version}`)).toBe('prioritized'); // fair scheduling gives every job a priority
    // The recovery job is live now: a second scan adds nothing.
    expect(await r.reconcileOnce()).toEqual([]);
  } finally {
    await r.stop();
  }
});

it('adds one job when many workers scan at once', async () => {
  const turnId = await startTurn('lost-2');
  await quiet();
  await q.cleanup();
  const rs = Array.from({ length: 4 }, reconciler);
  try {
    const results = await Promise.all(rs.map((r) => r.reconcileOnce()));
    expect(results.flatMap((x) => x ?? []).filter((t) => t.turnId === turnId)).toHaveLength(1);
    expect(await queues.jobState('runTurn', job('lost-2', turnId), 'start')).toBe('unknown');
  } finally {
    await Promise.all(rs.map((r) => r.stop()));
  }
});

it('leaves a turn waiting for a person, an ended turn, and a turn a worker holds under another job id', async () => {
  const waiting = await startTurn('approval');
  await store.append(
    tenantId,
    sessionStreamId('approval'),
    [{ type: 'ApprovalRequested', data: { turnId: waiting, approvalId: 'a1', toolCallId: 'tc1' }, metadata: { correlationId: 'c' } }],
    { expectedVersion: 'any' },
  );
  const ended = await startTurn('ended');
  await store.append(tenantId, sessionStreamId('ended'), [{ type: 'TurnCompleted', data: { turnId: ended }, metadata: { correlationId: 'c' } }], {
    expectedVersion: 'any',
  });
  const held = await startTurn('held');
  await q.cleanup();
  let release!: () => void;
  let took!: () => void;
  const taken = new Promise<void>((res) => (took = res));
  const w = new Worker(
    'turns',
    async () => {
      took();
      await new Promise<void>((r) => (release = r));
    },
    { connection: connectionOf(conn), prefix: q.prefix, lockDuration: 10_000 },
  );
  await queues.enqueue('runTurn', { ...job('held', held), reason: 'start' }, { key: 'some-other-key' });
  await taken;
  await quiet();
  const r = reconciler();
  try {
    const recovered = (await r.reconcileOnce())?.map((t) => t.sessionId);
    expect(recovered).toBeDefined();
    for (const left of ['approval', 'ended', 'held']) expect(recovered).not.toContain(left);
  } finally {
    release();
    await w.close();
    await r.stop();
  }
});
