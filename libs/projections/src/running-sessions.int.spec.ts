import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { EventStore, createPool } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { sessionsProjection } from './folds/sessions';
import type { ProjectionDef } from './projection';
import { ReadModels } from './read-models';
import { ProjectionRunner } from './runner';
import { waitCaughtUp } from './testing/seed';

// What the concurrentTurns limit counts (issue 16): the sessions running a turn now. The read
// model alone is a projection step behind, so a burst of turns, or one that just ended, was
// miscounted. runningSessions corrects the read model with the log after its checkpoint.

const T = randomUUID();
const OTHER = randomUUID();
let db: TestDatabase;
let pool: Pool;
let store: EventStore;
let reads: ReadModels;

const meta = () => ({ correlationId: randomUUID(), protocol: 'transport', actor: { type: 'api_key', id: 'k1' } });
const requested = (turnId: string) => ({
  type: 'TurnRequested',
  data: { turnId, userMessageId: `${turnId}:u`, prompt: 'p', context: {}, busyPolicy: 'enqueue' },
});
const started = (turnId: string) => ({ type: 'TurnStarted', data: { turnId } });
const completed = (turnId: string) => ({
  type: 'TurnCompleted',
  data: { turnId, text: 'done', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
});
const cancelled = (turnId: string) => ({ type: 'TurnCancelled', data: { turnId, reason: 'user', by: { type: 'api_key', id: 'k1' } } });
const approval = (turnId: string) => ({
  type: 'ApprovalRequested',
  data: { turnId, approvalId: `${turnId}:a`, toolCallId: `${turnId}:t`, toolName: 'shell', input: {}, riskTier: 'high', reason: 'r', deadlineAt: null },
});

async function append(tenantId: string, sessionId: string, ...events: { type: string; data: unknown }[]): Promise<void> {
  await store.append(tenantId, `session-${sessionId}`, events.map((e) => ({ ...e, metadata: meta() })) as never, { expectedVersion: 'any' });
}

/** The sessions projection, run until it has applied everything appended so far. */
async function project(): Promise<void> {
  const runner = new ProjectionRunner(pool, [sessionsProjection as unknown as ProjectionDef], { connectionString: db.url, standbyPollMs: 50 });
  await runner.start();
  try {
    await waitCaughtUp(pool, [sessionsProjection.name]);
  } finally {
    await runner.stop();
  }
}

const running = async (tenantId = T) => (await reads.runningSessions(tenantId)).sort();

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'projections_running' });
  pool = createPool(db.url, { max: 4 });
  store = new EventStore(pool);
  reads = new ReadModels(pool);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

it('counts started turns that have not ended, from the log alone, the read model from its rows, and both after it moves on', async () => {
  await append(T, 'a', requested('t1'), started('t1'));
  await append(T, 'b', requested('t1'), started('t1'), completed('t1'));
  await append(T, 'c', requested('t1'), started('t1'), approval('t1'));
  // A queued turn cancelled while the first runs: the session still runs its first.
  await append(T, 'd', requested('t1'), started('t1'), requested('t2'), cancelled('t2'));
  await append(OTHER, 'x', requested('t1'), started('t1'));
  // Nothing projected yet: all of it is in the log after the (missing) checkpoint.
  expect(await running()).toEqual(['a', 'c', 'd']);

  await project();
  expect(await running()).toEqual(['a', 'c', 'd']);
  expect(await running(OTHER)).toEqual(['x']);

  // The projection stopped: a turn ends and another starts, in the log only.
  await append(T, 'a', completed('t1'));
  await append(T, 'e', requested('t1'), started('t1'));
  // b starts a second turn and ends it; d's first turn ends and its next starts.
  await append(T, 'b', requested('t2'), started('t2'), completed('t2'));
  await append(T, 'd', completed('t1'), requested('t3'), started('t3'));
  // The read model is behind (what the limit read before): a still running, e not there.
  expect([(await reads.session(T, 'a'))?.status, await reads.session(T, 'e')]).toEqual(['running', null]);
  expect(await running()).toEqual(['c', 'd', 'e']);

  await project();
  expect(await running()).toEqual(['c', 'd', 'e']);
});
