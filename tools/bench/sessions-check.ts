/**
 * What the `sessions` limit's check costs a submit, before and after it stopped counting the
 * tenant's sessions for a submit to one that exists.
 *
 *   node -r @swc-node/register tools/bench/sessions-check.ts [--sessions 20000] [--n 1000]
 *
 * A tenant with `--sessions` session streams. Times (p50 and p99 in µs, one at a time) the check
 * of a submit to an existing session (every turn after a session's first) and to a new id:
 *   before  one count of the tenant's session streams, whatever the submit;
 *   after   an index lookup of the session's stream, and the count only when it is new.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { EventStore, asTenant, createPool } from '@hub/event-store';
import { createTestDatabase } from '@hub/testing';
import { timeEach } from './lib/percentile';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '20000' }, n: { type: 'string', default: '1000' } } });
const SESSIONS = Number(values.sessions);
const N = Number(values.n);

async function main(): Promise<void> {
  const db = await createTestDatabase({ prefix: 'bench_sessions_check' });
  const owner = createPool(db.ownerUrl, { max: 2 });
  const pool = createPool(db.url, { max: 2 });
  try {
    const tenantId = randomUUID();
    process.stderr.write(`seeding ${SESSIONS} session streams...\n`);
    await owner.query(`INSERT INTO streams (tenant_id, stream_id, version) SELECT $1, 'session-s' || i, 1 FROM generate_series(1, $2) i`, [tenantId, SESSIONS]);
    await owner.query('ANALYZE streams');
    const db$ = asTenant(pool, tenantId);
    const before = (id: string) =>
      db$.query(`SELECT count(*)::int AS n, bool_or(stream_id = $2) AS exists FROM streams WHERE tenant_id = $1 AND stream_id LIKE 'session-%'`, [
        tenantId,
        `session-${id}`,
      ]);
    const store = new EventStore(pool);
    const after = (id: string) => store.countUnlessExists(tenantId, 'session-', `session-${id}`);
    console.log(`${SESSIONS} sessions; a submit to an existing session:`);
    console.log(`  ${await timeEach('before ', N, () => before('s7'))}`);
    console.log(`  ${await timeEach('after  ', N, () => after('s7'))}`);
    console.log('a submit that opens a new one:');
    console.log(`  ${await timeEach('before ', N, () => before('new'))}`);
    console.log(`  ${await timeEach('after  ', N, () => after('new'))}`);
  } finally {
    await Promise.all([pool.end(), owner.end()]);
    await db.drop();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
