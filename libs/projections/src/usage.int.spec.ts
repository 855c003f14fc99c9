import { randomUUID } from 'node:crypto';
import { EventStore, createPool } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import type { Pool } from 'pg';
import { ProjectionRunner, emptyTotals, readUsage, rebuildProjection, replaySession, usageProjection, type UsageTotals } from './index';
import { SessionScript } from './testing/events';
import { seedTenant, waitCaughtUp } from './testing/seed';

// Issue 26: the usage read model's totals are what the log says, counted here straight from the
// events table (not by the projection's fold); a rebuild gives the same rows; replay finds nothing.

jest.setTimeout(60_000);

const T = randomUUID();
let db: TestDatabase;
let pool: Pool;
let owner: Pool;
let runner: ProjectionRunner;

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'usage_model' });
  pool = createPool(db.url, { max: 6 });
  owner = createPool(db.ownerUrl, { max: 2 });
  const store = new EventStore(pool);
  await seedTenant(store, T, { sessions: 2, turns: 4 });
  // A second key's session, with a tool of another executor and a failed turn.
  const s = new SessionScript(T, 'other').turnWithApproval('t0');
  s.add({ type: 'TurnRequested', data: { turnId: 't1', userMessageId: 'u', prompt: 'x', context: {}, busyPolicy: 'enqueue' } });
  s.add({ type: 'ToolCallStarted', data: { turnId: 't1', messageId: 'm', toolCallId: 'x', name: 'fetch', input: {}, policy: 'allow', executor: 'mcp:web' } });
  s.add({ type: 'TurnFailed', data: { turnId: 't1', code: 'X', message: 'no', retryable: false } });
  const events = s.events.map((e) => ({
    type: e.type,
    data: e.data,
    metadata: { ...e.metadata, correlationId: randomUUID(), actor: { type: 'api_key', id: 'k2' } },
  }));
  await store.append(T, 'session-other', events as never, { expectedVersion: 'any' });
  runner = new ProjectionRunner(pool, [usageProjection as never], { connectionString: db.url, standbyPollMs: 100, pollIntervalMs: 100 });
  await runner.start();
  await waitCaughtUp(pool, ['usage']);
});
afterAll(async () => {
  await runner?.stop();
  await pool?.end();
  await owner?.end();
  await db?.drop();
});

/** Each key's totals, counted from the events table alone: turns by the key of their request. */
async function countedFromLog(): Promise<Map<string, UsageTotals>> {
  const { rows } = await owner.query<{
    type: string;
    data: Record<string, unknown> & { usage?: { promptTokens: number; completionTokens: number } };
    metadata: { actor?: { id: string } };
    created_at: Date;
  }>('SELECT type, data, metadata, created_at FROM events WHERE tenant_id = $1 ORDER BY global_position', [T]);
  const keyOfTurn = new Map<string, string>();
  const requestedAt = new Map<string, number>();
  const out = new Map<string, UsageTotals>();
  for (const e of rows) {
    const turn = String(e.data.turnId);
    if (e.type === 'TurnRequested') keyOfTurn.set(turn, e.metadata.actor?.id as string);
    const key = keyOfTurn.get(turn);
    if (key === undefined) continue;
    const t = out.get(key) ?? emptyTotals();
    out.set(key, t);
    if (e.type === 'TurnRequested') t.turns.open++;
    const ended = ({ TurnCompleted: 'completed', TurnFailed: 'failed', TurnCancelled: 'cancelled' } as const)[e.type as 'TurnCompleted'];
    if (ended) {
      t.turns.open--;
      t.turns[ended]++;
    }
    if (e.type === 'ModelCallCompleted') {
      t.modelCalls++;
      t.promptTokens += e.data.usage?.promptTokens ?? 0;
      t.completionTokens += e.data.usage?.completionTokens ?? 0;
    }
    if (e.type === 'ToolCallStarted') t.toolCalls[String(e.data.executor)] = (t.toolCalls[String(e.data.executor)] ?? 0) + 1;
    if (e.type === 'ApprovalRequested') requestedAt.set(String(e.data.approvalId), e.created_at.getTime());
    if (e.type === 'ApprovalResolved') {
      t.approvals++;
      t.approvalWaitMs += e.created_at.getTime() - (requestedAt.get(String(e.data.approvalId)) as number);
    }
  }
  return out;
}

it('totals per key and in all equal a count over the events', async () => {
  const counted = await countedFromLog();
  expect([...counted.keys()].sort()).toEqual(['k1', 'k2']);
  // The store stamps events with its own clock: the day they were appended (one, unless the seed straddled midnight).
  const { rows } = await owner.query<{ day: string }>(
    `SELECT DISTINCT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM events WHERE tenant_id = $1 AND type = 'TurnRequested'`,
    [T],
  );
  const day = rows[0].day;
  const all = await readUsage(pool, T, { from: '2026-01-01', to: '2030-12-31' });
  if (rows.length > 1) return;
  expect(all.days.map((d) => [d.day, d.keyPrefix])).toEqual([
    [day, 'k1'],
    [day, 'k2'],
  ]);
  expect(all.days.find((d) => d.keyPrefix === 'k1')).toEqual(expect.objectContaining(counted.get('k1')));
  const k2 = await readUsage(pool, T, { from: day, to: day, key: 'k2' });
  expect(k2.totals).toEqual(counted.get('k2'));
  expect(k2.totals.toolCalls).toEqual({ builtin: 1, 'mcp:web': 1 });
  expect(all.totals.turns.completed).toBe((counted.get('k1') as UsageTotals).turns.completed + 1);
  expect(all.asOf).toBeGreaterThan(0);
  // Outside the range, and another tenant: nothing.
  expect((await readUsage(pool, T, { from: '2020-01-01', to: '2020-12-31' })).days).toEqual([]);
  expect((await readUsage(pool, randomUUID(), { from: '2026-01-01', to: '2030-12-31' })).days).toEqual([]);
});

it('is rebuilt to the same rows, and replay finds no difference', async () => {
  const dump = async () => (await owner.query('SELECT row_to_json(t) AS r FROM read_usage t ORDER BY tenant_id, session_id, turn_id')).rows;
  const before = await dump();
  expect(before).toHaveLength(2 * 4 + 2);
  const rebuilt = await rebuildProjection(pool, usageProjection as never, { connectionString: db.url });
  expect(rebuilt.position).toBeGreaterThan(0);
  await waitCaughtUp(pool, ['usage']);
  expect(await dump()).toEqual(before);
  for (const s of ['s0', 's1', 'other']) expect([s, await replaySession(pool, [usageProjection as never], T, s, { waitMs: 2000 })]).toEqual([s, []]);
});
