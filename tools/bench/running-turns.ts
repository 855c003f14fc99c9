/**
 * What the `concurrentTurns` check costs per submit, before and after it became exact.
 *
 *   node -r @swc-node/register tools/bench/running-turns.ts [--sessions 2000] [--running 20] [--tail 0,50,500] [--n 2000]
 *
 * A tenant with `--sessions` sessions (each one finished turn), `--running` of them running a
 * turn, projected; then, for each `--tail`, that many turn starts appended after the checkpoint
 * (the projection stopped: its lag). Times, per check (p50 and p99 in µs, one at a time):
 *   before  the read model's count (`read_sessions` not idle): one projection lag behind;
 *   after   `ReadModels.runningSessions` (read model + the log after its checkpoint), then the
 *           Redis place taken and given back (`TurnReservations`, what a submit adds).
 * `--explain` prints the plan of `runningSessions` (EXPLAIN ANALYZE) at each tail.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { EventStore, asTenant, createPool } from '@hub/event-store';
import { HUB_PROJECTIONS, ProjectionRunner, RUNNING_SESSIONS_SQL, ReadModels } from '@hub/projections';
import { TEST_REDIS_URL, createTestDatabase, uniqueQueuePrefix } from '@hub/testing';
import { TurnReservations } from '@hub/queue';
import { timeEach } from './lib/percentile';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    running: { type: 'string', default: '20' },
    tail: { type: 'string', default: '0,50,500' },
    n: { type: 'string', default: '2000' },
    explain: { type: 'boolean', default: false },
  },
});
const SESSIONS = Number(values.sessions);
const RUNNING = Number(values.running);
const N = Number(values.n);

const meta = () => ({ correlationId: randomUUID(), protocol: 'transport', actor: { type: 'api_key', id: 'bench' } });
const turn = (turnId: string, end: boolean) => [
  { type: 'TurnRequested', data: { turnId, userMessageId: `${turnId}:u`, prompt: 'p', context: {}, busyPolicy: 'enqueue' }, metadata: meta() },
  { type: 'TurnStarted', data: { turnId }, metadata: meta() },
  ...(end
    ? [
        {
          type: 'TurnCompleted',
          data: { turnId, text: 'ok', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
          metadata: meta(),
        },
      ]
    : []),
];

async function main(): Promise<void> {
  const db = await createTestDatabase({ prefix: 'bench_running' });
  const pool = createPool(db.url, { max: 4 });
  const q = uniqueQueuePrefix('bench_running');
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const store = new EventStore(pool);
    const tenantId = randomUUID();
    process.stderr.write(`seeding ${SESSIONS} sessions (${RUNNING} running)...\n`);
    for (let s = 0; s < SESSIONS; s++) await store.append(tenantId, `session-s${s}`, turn('t1', s >= RUNNING) as never, { expectedVersion: 'any' });
    const runner = new ProjectionRunner(pool, HUB_PROJECTIONS, { connectionString: db.url, standbyPollMs: 50 });
    await runner.start();
    const head = async () =>
      Number(
        (
          await asTenant(pool, tenantId).query<{ h: string }>('SELECT COALESCE(max(global_position), 0)::text AS h FROM events WHERE tenant_id = $1', [
            tenantId,
          ])
        ).rows[0].h,
      );
    const target = await head();
    for (;;) {
      const { rows } = await pool.query<{ p: string }>("SELECT COALESCE(min(position), 0)::text AS p FROM projection_checkpoints WHERE name = 'sessions'");
      if (Number(rows[0].p) >= target) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await runner.stop();
    const reads = new ReadModels(pool);
    const reservations = new TurnReservations(redis, q.prefix, 10_000);
    const before = () =>
      asTenant(pool, tenantId).query(`SELECT count(*)::int AS n FROM read_sessions WHERE tenant_id = $1 AND status <> 'idle' AND session_id <> $2`, [
        tenantId,
        'new',
      ]);
    let appended = 0;
    for (const tail of values.tail.split(',').map(Number)) {
      for (; appended < tail; appended++) await store.append(tenantId, `session-tail${appended}`, turn('t1', false) as never, { expectedVersion: 'any' });
      const running = (await reads.runningSessions(tenantId)).length;
      console.log(`tail ${tail} events after the checkpoint (the log says ${running} running; the read model ${RUNNING}):`);
      if (values.explain) {
        const sql = RUNNING_SESSIONS_SQL;
        const plan = await asTenant(pool, tenantId).query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, [
          tenantId,
          'sessions',
          'session-',
        ]);
        console.log(plan.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n'));
      }
      console.log(`  ${await timeEach('before: read model count       ', N, before)}`);
      console.log(`  ${await timeEach('after:  runningSessions        ', N, () => reads.runningSessions(tenantId))}`);
      console.log(
        `  ${await timeEach('after:  + Redis place and back ', N, async () => {
          const r = await reads.runningSessions(tenantId);
          await reservations.admit(tenantId, 'new', 1_000_000, r);
          await reservations.release(tenantId, 'new');
        })}`,
      );
    }
  } finally {
    redis.disconnect();
    await q.cleanup();
    await pool.end();
    await db.drop();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
