import { randomUUID } from 'node:crypto';
import { createServer, connect as tcpConnect } from 'node:net';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { EventStore, createPool } from '@hub/event-store';
import { REPO_ROOT, createTestDatabase, freeListenPort, type TestDatabase } from '@hub/testing';
import type { Pool } from 'pg';
import { HUB_PROJECTIONS, ProjectionRunner, projectionStatus, rebuildProjection } from './index';
import { dumpReadModels, seedTenant, waitCaughtUp } from './testing/seed';

jest.setTimeout(120_000);

const NAMES = HUB_PROJECTIONS.map((p) => p.name);
let db: TestDatabase;
let pool: Pool;
/** The owner's: for looking at the read models behind the runner's back (row-level security hides them from the apps' role). */
let owner: Pool;
let store: EventStore;
const A = randomUUID();
const B = randomUUID();
const runners: ProjectionRunner[] = [];

function runner(options: { batchSize?: number } = {}): ProjectionRunner {
  const r = new ProjectionRunner(pool, HUB_PROJECTIONS, { connectionString: db.url, standbyPollMs: 100, pollIntervalMs: 200, ...options });
  runners.push(r);
  return r;
}

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'projections_runner' });
  pool = createPool(db.url, { max: 12 });
  owner = createPool(db.ownerUrl, { max: 4 });
  store = new EventStore(pool);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await Promise.all([pool.end(), owner.end()]);
  await db.drop();
});

describe('projection runner', () => {
  it('projects every tenant from the log, skips and counts an unknown event type, and follows live appends', async () => {
    await seedTenant(store, A, { sessions: 3, turns: 3 });
    await store.append(A, 'session-s0', [{ type: 'FromTheFuture', data: {}, metadata: { correlationId: 'x' } }], { expectedVersion: 'any' });
    const r = runner();
    await r.start();
    await waitCaughtUp(owner, NAMES);
    const status = await projectionStatus(pool, NAMES);
    expect(status.map((s) => [s.name, s.skippedUnknown, s.lastSkippedType, s.lagEvents, s.active])).toEqual(
      NAMES.map((n) => [n, 1, 'FromTheFuture', 0, true]).sort(),
    );
    const sessions = await owner.query('SELECT session_id, turn_count, status FROM read_sessions WHERE tenant_id = $1 ORDER BY session_id', [A]);
    expect(sessions.rows).toEqual([0, 1, 2].map((i) => ({ session_id: `s${i}`, turn_count: 3, status: 'idle' })));

    // Live: a new tenant's events arrive through NOTIFY, not a rebuild.
    await seedTenant(store, B, { sessions: 1, turns: 1 });
    await waitCaughtUp(owner, NAMES, 5000);
    const pending = await owner.query("SELECT count(*)::int AS n FROM read_approvals WHERE tenant_id = $1 AND status = 'resolved'", [B]);
    expect(pending.rows[0].n).toBe(1);
  });

  it('runs each projection in one process only; a standby takes over when the active one stops', async () => {
    const one = runner();
    const two = runner();
    await one.start();
    await new Promise((r) => setTimeout(r, 300));
    await two.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(one.activeProjections().sort()).toEqual([...NAMES].sort());
    expect(two.activeProjections()).toEqual([]);
    await one.stop();
    const deadline = Date.now() + 5000;
    while (two.activeProjections().length < NAMES.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(two.activeProjections().sort()).toEqual([...NAMES].sort());
    await seedTenant(store, B, { sessions: 1, turns: 2, prefix: 'after-failover' });
    await waitCaughtUp(owner, NAMES, 5000);
    const row = await owner.query('SELECT turn_count FROM read_sessions WHERE tenant_id = $1 AND session_id = $2', [B, 'after-failover0']);
    expect(row.rows).toEqual([{ turn_count: 2 }]);
  });

  it('a projection whose start failed (its checkpoint read cut off, as in a failover) is started again while its lock is held', async () => {
    // The runner's pool reaches Postgres through a TCP relay that is not listening yet; its lock and
    // LISTEN connections go direct. So it gains every lock and every start fails.
    const target = new URL(db.url);
    const relayUrl = new URL(db.url);
    relayUrl.port = String(await freeListenPort());
    const relayed = createPool(relayUrl.toString(), { max: 4 });
    const r = new ProjectionRunner(relayed, HUB_PROJECTIONS, { connectionString: db.url, standbyPollMs: 100, pollIntervalMs: 200 });
    const relay = createServer((client) => {
      const server = tcpConnect(Number(target.port || 5432), target.hostname);
      client.on('error', () => undefined);
      server.on('error', () => undefined);
      client.pipe(server).pipe(client);
    });
    try {
      await r.start();
      await new Promise((res) => setTimeout(res, 500));
      expect(r.activeProjections()).toEqual([]);
      // Postgres reachable again: without a retry the runner kept the locks and ran nothing.
      await new Promise<void>((res) => relay.listen(Number(relayUrl.port), '127.0.0.1', res));
      const deadline = Date.now() + 5000;
      while (r.activeProjections().length < NAMES.length && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      expect(r.activeProjections().sort()).toEqual([...NAMES].sort());
      await seedTenant(store, B, { sessions: 1, turns: 1, prefix: 'after-retry' });
      await waitCaughtUp(owner, NAMES, 5000);
    } finally {
      await r.stop();
      await relayed.end();
      relay.close();
    }
  });

  it('rebuild while a runner is active: the active runner starts over from zero and the rebuild watches it reach the head', async () => {
    const r = runner();
    await r.start();
    await waitCaughtUp(owner, NAMES);
    const before = await dumpReadModels(owner);
    const progress: number[] = [];
    const result = await rebuildProjection(pool, HUB_PROJECTIONS[0], { connectionString: db.url, progressMs: 0, onProgress: (p) => progress.push(p.position) });
    expect(result.ranBy).toBe('active runner');
    expect(progress[progress.length - 1]).toBe(result.position);
    await waitCaughtUp(owner, NAMES);
    expect(await dumpReadModels(owner)).toEqual(before);
  });

  it('kill -9 of the runner process mid-batch, then a restart, leaves every read model equal to a rebuild from zero', async () => {
    await seedTenant(store, A, { sessions: 10, turns: 8, prefix: 'k' });
    await seedTenant(store, B, { sessions: 6, turns: 8, prefix: 'k' });
    await Promise.all(NAMES.map((n) => owner.query('UPDATE projection_checkpoints SET position = 0 WHERE name = $1', [n])));
    await owner.query('TRUNCATE read_sessions, read_turns, read_approvals, read_usage');

    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(__dirname, 'testing/run-projections.ts'), db.url, '--batch', '40', '--hold-ms', '400'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, SWC_NODE_PROJECT: resolve(REPO_ROOT, 'tsconfig.base.json') },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let log = '';
    const exited = new Promise((r) => child.once('exit', r));
    // Kill it inside the transaction of a batch after a few have committed.
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no batch in flight:\n${log}`)), 60_000);
      child.stderr.on('data', (d: Buffer) => {
        log += d.toString();
        if ((log.match(/"msg":"batch"/g) ?? []).length >= 6 && log.trimEnd().endsWith('"msg":"in batch","projection":"sessions"}')) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          res();
        }
      });
    });
    await exited;
    const committed = [...log.matchAll(/"msg":"batch","projection":"sessions","position":(\d+)/g)].map((m) => Number(m[1]));
    const [sessions] = await projectionStatus(pool, ['sessions']);
    // The batch in flight was not committed; the ones before it were.
    expect(sessions.position).toBe(committed[committed.length - 1]);
    expect(sessions.position).toBeLessThan(sessions.head);

    const restarted = runner({ batchSize: 40 });
    await restarted.start();
    await waitCaughtUp(owner, NAMES, 60_000);
    await restarted.stop();
    const afterRestart = await dumpReadModels(owner);

    for (const def of HUB_PROJECTIONS) await rebuildProjection(pool, def, { connectionString: db.url });
    const rebuilt = await dumpReadModels(owner);
    expect(afterRestart.read_sessions.length).toBeGreaterThanOrEqual(16);
    expect(afterRestart.read_approvals.length).toBeGreaterThan(100);
    expect(afterRestart).toEqual(rebuilt);
  });
});
