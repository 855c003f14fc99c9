import { randomUUID } from 'node:crypto';
import { SESSION_VIEW_VERSION, encodeSessionView, foldSessionView, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore, SnapshotStore, createPool } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import type { Pool } from 'pg';
import { HUB_PROJECTIONS, ProjectionRunner, replaySession, sessionsOf } from './index';
import { seedTenant, waitCaughtUp } from './testing/seed';

// Issue 15: replay proves itself only if it can fail. Sessions projected by the real runner
// replay with zero differences; a read-model row edited, deleted or added by hand, and an edited
// snapshot, are each named by model, row and field; a read model that has not caught up is
// reported, or left out on request. HubStack.stop() turns any such line into a failed test file.

jest.setTimeout(60_000);

const NAMES = HUB_PROJECTIONS.map((p) => p.name);
const T = randomUUID();
let db: TestDatabase;
let pool: Pool;
/** The owner's pool: edits behind the hub's back, as a database user could (the apps' role sees no tenant's rows unscoped). */
let owner: Pool;
let store: EventStore;
let runner: ProjectionRunner | undefined;

async function startRunner(): Promise<void> {
  runner = new ProjectionRunner(pool, HUB_PROJECTIONS, { connectionString: db.url, standbyPollMs: 100, pollIntervalMs: 100 });
  await runner.start();
}

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'replay_check' });
  pool = createPool(db.url, { max: 8 });
  owner = createPool(db.ownerUrl, { max: 2 });
  store = new EventStore(pool);
  await seedTenant(store, T, { sessions: 2, turns: 3 });
  // A stream whose first event is one no read model reads the metadata of (the hub opens every
  // session with SessionOpened, but the log does not promise it): replay must hand the folds
  // what the runner hands them, or it reports a difference the live projection never made.
  const metadata = { correlationId: 'c', actor: { type: 'system' as const, id: 'test' }, protocol: 'internal' as const };
  const text = (n: number) => ({ type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 't1:c0', offset: n, text: 'x' }, metadata });
  await store.append(T, sessionStreamId('bare'), [text(0), text(1)], { expectedVersion: 'no_stream' });
  await startRunner();
  await waitCaughtUp(pool, NAMES);
});
afterAll(async () => {
  await runner?.stop();
  await pool?.end();
  await owner?.end();
  await db?.drop();
});

const replay = (sessionId: string, o = {}) => replaySession(pool, HUB_PROJECTIONS, T, sessionId, { waitMs: 2000, ...o });

it('finds nothing to report on sessions the runner projected, the bare stream included', async () => {
  expect((await sessionsOf(pool, T)).map((s) => s.sessionId)).toEqual(['bare', 's0', 's1']);
  for (const s of ['bare', 's0', 's1']) expect([s, await replay(s)]).toEqual([s, []]);
});

it('names a read-model field edited by hand, a deleted row and an added one', async () => {
  await owner.query(`UPDATE read_turns SET status = 'failed' WHERE tenant_id = $1 AND session_id = 's0' AND turn_id = 't1'`, [T]);
  await owner.query(`DELETE FROM read_approvals WHERE tenant_id = $1 AND session_id = 's0' AND approval_id = 't0:a0'`, [T]);
  await owner.query(
    `INSERT INTO read_turns SELECT tenant_id, session_id, 'ghost', status, requested_via, requested_at, started_at, ended_at, duration_ms, provider, model, model_calls,
       tool_calls, prompt_tokens, completion_tokens, total_tokens, end_reason, error_code, requested_position, updated_position
       FROM read_turns WHERE tenant_id = $1 AND session_id = 's0' AND turn_id = 't0'`,
    [T],
  );
  const diffs = await replay('s0');
  expect(diffs).toEqual(
    expect.arrayContaining([
      { tenantId: T, sessionId: 's0', model: 'turns', key: `${T}/s0/t1`, field: 'status', stored: 'failed', replayed: 'completed' },
      { tenantId: T, sessionId: 's0', model: 'approvals', key: `${T}/s0/t0:a0`, field: '(row)', stored: null, replayed: 'present' },
      { tenantId: T, sessionId: 's0', model: 'turns', key: `${T}/s0/ghost`, field: '(row)', stored: 'present', replayed: null },
    ]),
  );
  expect(diffs).toHaveLength(3);
  expect(await replay('s1')).toEqual([]);
});

it("names a field of the session's stored snapshot that its log does not fold to", async () => {
  const { events } = await store.readStream<HubEvent>(T, sessionStreamId('s1'));
  const view = JSON.parse(encodeSessionView(foldSessionView(events as Recorded<HubEvent>[]))) as { session: Record<string, unknown> };
  const snapshots = new SnapshotStore(pool);
  await snapshots.write(T, sessionStreamId('s1'), { version: events.length, foldVersion: SESSION_VIEW_VERSION, state: JSON.stringify(view) });
  expect(await replay('s1')).toEqual([]);
  const edited = { ...view, session: { ...view.session, status: 'closed' } };
  await owner.query(`UPDATE session_snapshots SET state = $3::json WHERE tenant_id = $1 AND stream_id = $2`, [
    T,
    sessionStreamId('s1'),
    JSON.stringify(edited),
  ]);
  const diffs = await replay('s1');
  expect(diffs).toEqual([
    {
      tenantId: T,
      sessionId: 's1',
      model: 'session_snapshot',
      key: `version ${events.length}`,
      field: 'session.status',
      stored: 'closed',
      replayed: view.session.status,
    },
  ]);
});

it('reports a read model that has not reached the session, unless told to leave it out', async () => {
  await runner?.stop();
  runner = undefined;
  await store.append(
    T,
    sessionStreamId('bare'),
    [{ type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 't1:c0', offset: 2, text: 'y' }, metadata: { correlationId: 'c' } }],
    {
      expectedVersion: 'any',
    },
  );
  const behind = await replay('bare', { waitMs: 100 });
  expect(behind.map((d) => [d.model, d.key, d.field])).toEqual(NAMES.map((n) => [n, '(checkpoint)', 'position']));
  const left: string[] = [];
  expect(await replay('bare', { waitMs: 100, skipLagging: true, onLagging: (m: string) => left.push(m) })).toEqual([]);
  expect(left).toEqual(NAMES);
});
