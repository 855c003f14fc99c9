/**
 * What row-level security's scope adds to one read (ADR 0023, docs/security/tenant-isolation.md).
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node -r @swc-node/register tools/bench/scoped-read.ts [--reads 20000] [--rounds 4]
 *
 * One named read of a session's events (tenant and stream given, 9 rows), one at a time on one
 * connection each way, `--reads` times each, in `--rounds` alternating blocks so a busy moment of
 * the machine falls on both:
 *   unscoped  as the database's owner (a superuser: policies are not applied), the statement alone;
 *   scoped    as the apps' login (`hub_app`, under the policies), through `asTenant`: the named
 *             `set_config` bound in front of the statement, one Sync, as the apps send it.
 * Prints per read: the Postgres backend's CPU (from /proc), this process's CPU, wall p50 and p99,
 * and the socket writes and reads (TCP chunks) it took.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Socket } from 'node:net';
import { Pool } from 'pg';
import { EventStore, asTenant } from '@hub/event-store';
import { createTestDatabase } from '@hub/testing';
import { cpuMs } from './lib/cpu';
import { pct } from './lib/percentile';

const { values } = parseArgs({ options: { reads: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '4' } } });
const READS = Number(values.reads);
const ROUNDS = Number(values.rounds);

const READ = {
  name: 'bench_read_stream',
  text: 'SELECT stream_position, type, data FROM events WHERE tenant_id = $1 AND stream_id = $2 AND stream_position > $3 ORDER BY stream_position LIMIT 100',
};

interface Side {
  name: string;
  read: () => Promise<{ rows: unknown[] }>;
  pidOf: () => Promise<number>;
  backendPid: number;
  socket: Socket;
  backendMs: number;
  nodeUs: number;
  wallUs: number[];
  writes: number;
  chunks: number;
}

async function side(name: string, pool: Pool, read: () => Promise<{ rows: unknown[] }>, pidOf: () => Promise<number>): Promise<Side> {
  const client = await pool.connect();
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  client.release();
  const s: Side = { name, read, pidOf, backendPid: await pidOf(), socket, backendMs: 0, nodeUs: 0, wallUs: [], writes: 0, chunks: 0 };
  // What reaches the kernel: pg corks the socket around a query's messages, so its write() calls
  // leave as one _writev (or one _write when there is a single one).
  const raw = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const m of ['_write', '_writev'] as const) {
    const original = raw[m].bind(socket);
    raw[m] = (...args: unknown[]) => {
      s.writes++;
      original(...args);
    };
  }
  socket.on('data', () => s.chunks++);
  return s;
}

async function block(s: Side, n: number): Promise<void> {
  const backend = cpuMs(s.backendPid) ?? NaN;
  const node = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const { rows } = await s.read();
    s.wallUs.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (rows.length !== 9) throw new Error(`${s.name} read ${rows.length} rows, not 9`);
  }
  const used = process.cpuUsage(node);
  s.nodeUs += used.user + used.system;
  s.backendMs += (cpuMs(s.backendPid) ?? NaN) - backend;
}

async function main(): Promise<void> {
  const db = await createTestDatabase({ prefix: 'bench_scoped_read' });
  // One connection each, never closed for idling while the other side runs its block.
  const app = new Pool({ connectionString: db.url, max: 1, idleTimeoutMillis: 0 });
  const owner = new Pool({ connectionString: db.ownerUrl, max: 1, idleTimeoutMillis: 0 });
  try {
    const tenant = randomUUID();
    const other = randomUUID();
    const store = new EventStore(app, { groupCommit: false });
    const events = Array.from({ length: 9 }, (_, i) => ({ type: 'Noted', data: { i }, metadata: { correlationId: randomUUID() } }));
    for (const t of [tenant, other]) await store.append(t, 'session-bench', events as never, { expectedVersion: 'any' });
    const values = [tenant, 'session-bench', 0];
    const unscoped = await side(
      'unscoped',
      owner,
      () => owner.query(READ, values),
      async () => (await owner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid,
    );
    const scoped = await side(
      'scoped',
      app,
      () => asTenant(app, tenant).query(READ, values),
      async () => (await asTenant(app, tenant).query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid,
    );
    // Warm both (named statements parsed, plans cached, pages in memory), then reset the counts.
    for (const s of [unscoped, scoped]) {
      for (let i = 0; i < 2000; i++) await s.read();
      s.writes = 0;
      s.chunks = 0;
    }
    const per = Math.ceil(READS / ROUNDS);
    for (let r = 0; r < ROUNDS; r++) for (const s of r % 2 ? [scoped, unscoped] : [unscoped, scoped]) await block(s, per);
    for (const s of [unscoped, scoped]) if ((await s.pidOf()) !== s.backendPid) throw new Error(`${s.name}: its connection was replaced during the run`);
    const n = per * ROUNDS;
    console.log(`${n} reads each way, ${ROUNDS} alternating rounds, 9 rows per read:`);
    for (const s of [unscoped, scoped])
      console.log(
        `  ${s.name.padEnd(9)} Postgres CPU ${((s.backendMs * 1000) / n).toFixed(1)} µs, Node CPU ${(s.nodeUs / n).toFixed(1)} µs, ` +
          `wall p50 ${pct(s.wallUs, 50).toFixed(0)} µs p99 ${pct(s.wallUs, 99).toFixed(0)} µs, ` +
          `socket writes ${(s.writes / n).toFixed(2)}, TCP chunks read ${(s.chunks / n).toFixed(2)} per read`,
      );
    console.log(
      `  scoped - unscoped: Postgres CPU ${(((scoped.backendMs - unscoped.backendMs) * 1000) / n).toFixed(1)} µs, Node CPU ${((scoped.nodeUs - unscoped.nodeUs) / n).toFixed(1)} µs per read`,
    );
  } finally {
    await app.end();
    await owner.end();
    await db.drop();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
