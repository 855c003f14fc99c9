import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { sessionStreamId, type CommandMetadata, type HubEvent } from '@hub/domain';
import { EventStore, asSystem, createPool } from '@hub/event-store';
import { approvalsProjection, rebuildProjection } from '@hub/projections';
import { CommandHandler } from '@hub/sessions';
import { TEST_REDIS_URL, createTestDatabase, uniqueQueuePrefix, type TestDatabase } from '@hub/testing';
import { HubQueues, connectionOf } from './queues';
import { TurnReconciler, type ReconcilerLog } from './reconciler';
import { ApprovalDeadlines, type LostDeadline } from './approval-deadlines';

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

const log: ReconcilerLog = {
  query: (sql, params) => asSystem(pool, 'reconciler').query(sql, params),
  readStream: (t, s) => store.readStream<HubEvent>(t, s),
};
const reconciler = (deadlines?: ApprovalDeadlines) => new TurnReconciler({ log, queues, connection: conn, quietMs: 50, lockMs: 10_000, deadlines });

const meta = (commandId: string): CommandMetadata => ({
  commandId,
  tenantId,
  now: new Date().toISOString(),
  correlationId: 'c',
  actor: { type: 'api_key', id: 'u' },
  protocol: 'transport',
});

/** The command handler as a worker runs it: it schedules turns, and the deadline of an approval a command asks (an escalation). */
const handler = () =>
  new CommandHandler(
    { readStream: (t, s) => store.readStream<HubEvent>(t, s) as never, append: (t, s, e, o) => store.append<HubEvent>(t, s, e as never, o) as never },
    {
      scheduleTurn: async (t, s, turnId, key, reason) =>
        void (await queues.enqueue('runTurn', { tenantId: t, sessionId: s, turnId, reason, trace: { correlationId: 'c' } }, { key })),
      scheduleApprovalExpiry: async (t, s, approvalId, delayMs, deadlineAt) =>
        void (await queues.enqueue('expireApproval', { tenantId: t, sessionId: s, approvalId, deadlineAt, trace: { correlationId: 'c' } }, { delayMs })),
      signalCancel: async () => undefined,
    },
  );

async function startTurn(sessionId: string): Promise<string> {
  const turnId = `turn-${randomUUID()}`;
  const out = await handler().handle({ type: 'SubmitTurn', sessionId, turnId, prompt: 'hi', context: {}, busyPolicy: 'enqueue' }, meta(randomUUID()));
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
    [
      {
        type: 'ApprovalRequested',
        data: { turnId: waiting, approvalId: 'a1', toolCallId: 'tc1', toolName: 'write_file', input: {}, riskTier: 'high', reason: 'asks', deadlineAt: null },
        metadata: { correlationId: 'c' },
      },
    ],
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

describe('approval deadlines (ADR 0050)', () => {
  const deadline = { type: 'system' as const, id: 'approval-deadline' };
  /** apps/worker's expireApproval processor: the hub's answer, which the approval's onExpiry decides. */
  const expire = (p: { tenantId: string; sessionId: string; approvalId: string }) =>
    handler().handle(
      { type: 'ResolveApproval', sessionId: p.sessionId, approvalId: p.approvalId, decision: 'denied', reason: 'the approval deadline passed', expired: true },
      { ...meta(`expire:${p.sessionId}:${p.approvalId}`), actor: deadline, protocol: 'internal' },
    );

  async function ask(sessionId: string, approvalId: string, inMs: number, onExpiry?: unknown): Promise<string> {
    const turnId = await startTurn(sessionId);
    const deadlineAt = new Date(Date.now() + inMs).toISOString();
    // As the turn runner does: the deadline's job first, then the request.
    await queues.enqueue('expireApproval', { tenantId, sessionId, approvalId, deadlineAt, trace: { correlationId: 'c' } }, { delayMs: inMs });
    const data = {
      turnId,
      approvalId,
      toolCallId: `tc-${approvalId}`,
      toolName: 'write_file',
      input: { path: 'x' },
      riskTier: 'high',
      reason: 'asks',
      deadlineAt,
    };
    await store.append(
      tenantId,
      sessionStreamId(sessionId),
      [{ type: 'ApprovalRequested', data: { ...data, ...(onExpiry ? { onExpiry } : {}) }, metadata: { correlationId: 'c' } }],
      {
        expectedVersion: 'any',
      },
    );
    return deadlineAt;
  }

  async function resolvedBy(sessionId: string, approvalId: string, withinMs: number): Promise<HubEvent[]> {
    const until = Date.now() + withinMs;
    for (;;) {
      const { events } = await store.readStream<HubEvent>(tenantId, sessionStreamId(sessionId));
      const found = events.filter((e) => e.type === 'ApprovalResolved' && e.data.approvalId === approvalId);
      if (found.length > 0 || Date.now() > until) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('schedules again the deadlines Redis lost, from the read model checked against the log, and each fires', async () => {
    const lostAt = await ask('deadline-lost', 'a-lost', 1500);
    await ask('deadline-esc', 'a-esc', 1500, { escalate: { approvers: { roles: ['admin'] }, required: 1, afterSeconds: 1 } });
    await ask('deadline-answered', 'a-done', 1500);
    await rebuildProjection(pool, approvalsProjection as never, { connectionString: db.url });
    // Answered after the read model was built: the read model still says pending, the log does not.
    await handler().handle(
      { type: 'ResolveApproval', sessionId: 'deadline-answered', approvalId: 'a-done', decision: 'approved', reason: null },
      meta(randomUUID()),
    );

    const rescheduled: LostDeadline[] = [];
    const r = reconciler(new ApprovalDeadlines({ log, queues, onRescheduled: (d) => rescheduled.push(d) }));
    let w: Worker | undefined;
    try {
      await r.reconcileOnce();
      expect(rescheduled).toEqual([]); // every deadline has its job
      await q.cleanup(); // Redis loses its data (only this spec's keys)
      await r.reconcileOnce();
      expect(rescheduled.map((d) => [d.sessionId, d.approvalId]).sort()).toEqual([
        ['deadline-esc', 'a-esc'],
        ['deadline-lost', 'a-lost'],
      ]);
      const lost = rescheduled.find((d) => d.approvalId === 'a-lost');
      expect(lost?.deadlineAt).toBe(lostAt);
      expect(lost?.delayMs).toBeLessThanOrEqual(1500);
      expect(
        await queues.jobState('expireApproval', {
          tenantId,
          sessionId: 'deadline-lost',
          approvalId: 'a-lost',
          deadlineAt: lostAt,
          trace: { correlationId: 'c' },
        }),
      ).toBe('delayed');
      await r.reconcileOnce();
      expect(rescheduled).toHaveLength(2); // idempotent: the jobs are there now

      w = new Worker('commands', (job) => expire(job.data), { connection: connectionOf(conn), prefix: q.prefix });
      const [denied] = await resolvedBy('deadline-lost', 'a-lost', 5000);
      expect(denied?.data).toEqual(expect.objectContaining({ decision: 'denied', by: deadline }));
      // The escalation was asked with its own deadline, scheduled by the command's follow-up; it denies in turn.
      const [escalationDenied] = await resolvedBy('deadline-esc', 'a-esc.escalated', 5000);
      expect(escalationDenied?.data).toEqual(expect.objectContaining({ decision: 'denied', by: deadline }));
      // An answered approval is left alone; its deadline, had it fired, finds nothing to expire.
      expect(await expire({ tenantId, sessionId: 'deadline-answered', approvalId: 'a-done' })).toEqual(
        expect.objectContaining({ ok: false, code: 'APPROVAL_ALREADY_RESOLVED' }),
      );
      expect((await resolvedBy('deadline-answered', 'a-done', 0)).map((e) => e.data)).toEqual([expect.objectContaining({ decision: 'approved' })]);
    } finally {
      await w?.close();
      await r.stop();
    }
  });
});
