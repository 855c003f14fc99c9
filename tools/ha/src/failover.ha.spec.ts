import { Client } from 'pg';
import { asTenant, createPool, devAppUrl, verifyChains } from '@hub/event-store';
import { TransportTestClient } from '@hub/testing';
import { FaultHub } from '../../faults/src/fault-hub';
import { cli, failoverTable, type FailoverRow } from './failover-report';
import { HaPgBouncer } from './ha-pgbouncer';
import { HaPostgres } from './ha-postgres';
import { HaRedis, REDIS_PRIMARY_NAME } from './ha-redis';
import { sleep, step, until, within } from './waits';

// Failover of the stores under a steady load of turns: the hub (one ingress, two workers,
// `bin/hub` as in production) on Postgres managed by Patroni behind HAProxy and on Redis behind
// Sentinel. For each fault: how long until a turn submitted after it is served, whether any
// acknowledged turn was lost or any text written twice, whether the hash chains verify and the
// read models equal a replay of the log, and whether a watcher that was connected through the
// failover ends with exactly the turn's text.

jest.setTimeout(300_000);

const PROMPT = 'long answer 120';
const LOAD_SESSIONS = 4;

let pg: HaPostgres;
let redis: HaRedis;
/**
 * HA_PGBOUNCER=session: every connection of the hub (and of the suite's ledger) goes through
 * Debian's PgBouncer in session pooling in front of HAProxy. Unset: straight to HAProxy.
 */
const VIA_PGBOUNCER = process.env.HA_PGBOUNCER;
if (VIA_PGBOUNCER !== undefined && VIA_PGBOUNCER !== 'session')
  throw new Error(`HA_PGBOUNCER=${VIA_PGBOUNCER}: only session pooling can carry the hub (docs/high-availability.md, Connection poolers)`);
let bouncer: HaPgBouncer | undefined;
let hub: FaultHub;
let expected = '';
const report: Record<string, FailoverRow> = {};

// Every wait below has a deadline (`within`, `until`, waitFor's): a run that cannot go on fails
// naming what it waited for, instead of hanging until Jest's timeout (one run in four once did,
// in setup, with nothing to say where).
const CONNECT_MS = 30_000;

/** A transport client, or a clear failure when the socket does not open (the ws upgrade has no deadline of its own). */
function connect(query: Record<string, string | number>, resumeFrom?: TransportTestClient): Promise<TransportTestClient> {
  const opened = TransportTestClient.connect(hub.url, hub.apiKey, query, {}, resumeFrom && { state: resumeFrom.state, cursor: resumeFrom.cursor });
  return within(`opening a transport socket for ${query.session}`, CONNECT_MS, opened);
}

/** FaultHub.submit with deadlines: a client per session, its snapshot, then `prompt`. */
function submit(sessions: string[]): Promise<TransportTestClient[]> {
  return Promise.all(
    sessions.map(async (session) => {
      const c = await connect({ session });
      await c.waitFor('snapshot', (x) => x.state !== null, 20_000);
      c.send([{ type: 'submit', prompt: PROMPT }]);
      return c;
    }),
  );
}

beforeAll(async () => {
  // Each start has deadlines of its own (until's) and takes its servers down when it fails.
  const [p, r] = await Promise.allSettled([
    step('Postgres: etcd, two Patroni nodes, a synchronous standby, HAProxy', 330_000, () => HaPostgres.start()),
    step('Redis: a primary, its replica, three Sentinels', 120_000, () => HaRedis.start()),
  ]);
  if (p.status === 'fulfilled') pg = p.value;
  if (r.status === 'fulfilled') redis = r.value;
  if (p.status === 'rejected') throw p.reason;
  if (r.status === 'rejected') throw r.reason;
  if (VIA_PGBOUNCER)
    bouncer = await step('PgBouncer (session pooling) in front of HAProxy', 60_000, () => HaPgBouncer.start(pg, 'session', ['postgres', APP_LOGIN]));
  const hubPg = bouncer ? { url: bouncer.url('postgres') } : pg;
  hub = await step('hub: migrations, one ingress, two workers, a tenant', 180_000, () =>
    FaultHub.start(hubPg, redis, 2, {
      HUB_REDIS_SENTINELS: redis.sentinelSetting,
      HUB_REDIS_SENTINEL_NAME: REDIS_PRIMARY_NAME,
      // The session list and usage read the standby (HAProxy on GET /replica), as the app's login.
      ...(bouncer ? {} : { HUB_READ_DATABASE_URL: devAppUrl(pg.replicaUrl) }),
    }),
  );
  // The hub's processes really are PgBouncer's clients (their login, several connections each).
  if (bouncer) expect((await within('PgBouncer SHOW CLIENTS', 10_000, bouncer.clientUsers())).filter((u) => u === APP_LOGIN).length).toBeGreaterThan(3);
  const [ref] = await step('a reference turn', 90_000, () => submit(['reference']));
  await ref.waitForIdle(60_000);
  expected = ref.lastAssistant()?.content ?? '';
  expect(expected.split(' ')).toHaveLength(120);
  await within('closing the reference socket', 35_000, ref.close());
}, 600_000);

afterAll(async () => {
  process.stdout.write(failoverTable(report));
  // How often a projection's start failed after its lock was gained (a failover cut the
  // connection) and was tried again: before the runner retried, such a read model stopped.
  if (hub) process.stdout.write(`projection starts retried: ${hub.workers.map((w) => w.stderr.split('failed to start, retrying').length - 1).join(', ')}\n`);
  await within('stopping the hub', 30_000, hub?.stop() ?? Promise.resolve()).catch((e: Error) => process.stderr.write(`${e.message}\n`));
  await bouncer?.destroy();
  await Promise.all([pg?.destroy(), redis?.destroy()]);
});

/** The login the hub's processes use (FaultHub: devAppUrl of the owner's URL). */
const APP_LOGIN = new URL(devAppUrl('postgresql://x@h/db')).username;

async function status(path: string): Promise<number> {
  const res = await fetch(`${hub.url}${path}`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
  await res?.body?.cancel();
  return res?.status ?? 0;
}

/**
 * Submits a fresh session's turn every 500 ms from the fault on, until one streams text: the
 * time from the fault to that text is "serve again". Every probe that got its turn recorded is
 * in the ledger too, so a probe acknowledged during the failover and then lost would count.
 */
async function probeUntilServed(name: string, t0: number, probes: string[], seen: string[], ms = 120_000): Promise<number> {
  let served = 0;
  const clients: TransportTestClient[] = [];
  for (let i = 0; !served && Date.now() - t0 < ms; i++) {
    const session = `${name}-probe-${i}`;
    probes.push(session);
    void (async () => {
      const c = await connect({ session });
      clients.push(c);
      await c.waitFor('snapshot', (x) => x.state !== null, 30_000);
      c.send([{ type: 'submit', prompt: PROMPT }]);
      // The client's own view of the acknowledgement: its session runs the turn. The log read
      // after the failover must have that turn completed (the ledger alone only counts turns
      // the surviving log recorded, and would not see one a lost primary had acknowledged).
      await c.waitFor('accepted', (x) => x.state?.status === 'running' || (x.lastAssistant()?.content.length ?? 0) > 0, 60_000);
      seen.push(session);
      await c.waitFor('text', (x) => (x.lastAssistant()?.content.length ?? 0) > 0, 60_000);
      served ||= Date.now();
    })().catch(() => undefined);
    await sleep(500);
  }
  // The probes' turns run to their end (the ledger counts them), their sockets are not needed.
  setTimeout(() => clients.forEach((c) => void c.close().catch(() => undefined)), 1000);
  if (!served) throw new Error(`${name}: no turn served within ${ms} ms of the fault\n${processLogs()}\n${pg.logs()}`);
  return served - t0;
}

/** A watcher whose socket the failover closed reconnects from its cursor; either way it must end with the turn's exact text. */
async function watcherEndsIntact(c: TransportTestClient, session: string): Promise<boolean> {
  let w = c;
  if (c.closeCode !== null) w = await connect({ session, after: c.cursor }, c);
  await w
    .waitFor('the turn to end', (x) => x.state?.status === 'idle' && (x.lastAssistant()?.content.length ?? 0) >= expected.length, 120_000)
    .catch(() => undefined);
  const ok = w.lastAssistant()?.content === expected;
  await within('closing a watcher', 35_000, w.close());
  return ok;
}

async function underFailover(name: string, fault: () => Promise<void>): Promise<FailoverRow> {
  const load = Array.from({ length: LOAD_SESSIONS }, (_, i) => `${name}-${i}`);
  const clients = await submit(load);
  await clients[0].waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 60, 60_000);
  const t0 = Date.now();
  await within(`the fault ${name}`, 90_000, fault());
  await sleep(1500);
  const healthDuring = `${await status('/health/live')}, ${await status('/health')}`;
  const probes: string[] = [];
  const seen: string[] = [];
  const serveAgainMs = await probeUntilServed(name, t0, probes, seen);
  const ledger = await within('the turns to settle', 200_000, hub.settle([...load, ...probes], expected, 180_000));
  let lostSeenByClients = 0;
  for (const session of seen) if ((await within('a probe session ledger', 10_000, hub.ledger([session], expected))).completed < 1) lostSeenByClients++;
  const intact = await Promise.all(clients.map((c, i) => watcherEndsIntact(c, load[i])));
  const chains = await within('verifying the chains', 60_000, verifyChains(hub.pool, { tenantId: hub.tenantId }));
  // replay waits (up to --wait, per session and read model) while a projection runner holds its
  // lock and has not reached the session's last event: a runner that holds it and does not
  // advance makes it outlast the deadline. Either way the projections' state is reported.
  const replay = await cli(['replay', '--all', '--tenant', hub.tenantId, '--wait', '60'], { ...hub.env(), DATABASE_URL: pg.url }, 120_000).catch(
    async (e: Error) => {
      throw new Error(`${e.message}\n${await projectionState()}\n${processLogs()}`);
    },
  );
  const replayExit = replay.code;
  if (replayExit !== 0) process.stdout.write(`\n${name} replay:\n${replay.stdout.slice(-3000)}\n${replay.stderr.slice(-2000)}\n${await projectionState()}\n`);
  const { settledAt: _, ...counts } = ledger;
  const row: FailoverRow = {
    ...counts,
    serveAgainMs,
    chainsBroken: chains.broken.length,
    replayExit,
    watchersIntact: `${intact.filter(Boolean).length}/${intact.length}`,
    healthDuring,
    lostSeenByClients,
  };
  report[name] = row;
  // Every hub process went through the failover without a restart (none crashed).
  row.crashed = [hub.ingress, ...hub.workers].filter((p) => !p.alive).length;
  if (row.lost || row.duplicated || row.crashed) process.stdout.write(`\n${name} processes:\n${processLogs()}\n`);
  return row;
}

/** Each read model's checkpoint against the log's head, and who holds the runners' advisory locks (on the primary now). */
async function projectionState(): Promise<string> {
  const q = async (sql: string) => JSON.stringify((await within('reading the projections state', 10_000, hub.pool.query(sql))).rows);
  return [
    `checkpoints: ${await q('SELECT name, position FROM projection_checkpoints ORDER BY name').catch((e: Error) => e.message)}`,
    `log head: ${await q('SELECT max(global_position) AS head FROM events').catch((e: Error) => e.message)}`,
    `advisory locks: ${await q(
      `SELECT l.classid, l.objid, l.granted, a.pid, a.usename, a.state, a.backend_start, left(a.query, 120) AS query FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory'`,
    ).catch((e: Error) => e.message)}`,
  ].join('\n');
}

function processLogs(): string {
  return [hub.ingress, ...hub.workers].map((p) => `--- ${p.child.spawnargs.slice(-1)[0]} alive=${p.alive}\n${p.stderr.slice(-2500)}`).join('\n');
}

function expectNothingLost(row: FailoverRow): void {
  expect(row).toEqual(
    expect.objectContaining({
      crashed: 0,
      lost: 0,
      lostSeenByClients: 0,
      duplicated: 0,
      chainsBroken: 0,
      replayExit: 0,
      watchersIntact: `${LOAD_SESSIONS}/${LOAD_SESSIONS}`,
    }),
  );
  expect(row.acknowledged).toBeGreaterThanOrEqual(LOAD_SESSIONS);
  // Liveness answers through the outage (no pod would be restarted); readiness may not.
  expect(row.healthDuring.startsWith('200,')).toBe(true);
}

/** The ingress's /metrics gauge of its lagging reads' replay lag (HUB_READ_DATABASE_URL on a standby). */
async function readLagSeconds(): Promise<number | undefined> {
  const text = await (await fetch(`${hub.url}/metrics`, { signal: AbortSignal.timeout(3000) })).text();
  const m = /^hub_db_read_replay_lag_seconds\{[^}]*standby="true"[^}]*\} (\S+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

(VIA_PGBOUNCER ? it.skip : it)(
  'Read-model lists (the session list, usage) read from the synchronous standby through HAProxy on GET /replica (HUB_READ_DATABASE_URL); /metrics shows its replay lag',
  async () => {
    const standby = await pg.untilSynchronous();
    const headers = { authorization: `Bearer ${hub.apiKey}` };
    const get = async (path: string) => {
      const res = await fetch(`${hub.url}${path}`, { headers, signal: AbortSignal.timeout(5000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // Lag while turns stream: the gauge sampled every 250 ms for 4 s under the load's writes.
    const load = ['standby-reads-0', 'standby-reads-1', 'standby-reads-2', 'standby-reads-3'];
    const clients = await submit(load);
    await clients[0].waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 60, 60_000);
    const lags: number[] = [];
    for (let i = 0; i < 16; i++) {
      const lag = await within('scraping /metrics', 5000, readLagSeconds());
      if (lag !== undefined) lags.push(lag);
      await sleep(250);
    }
    await Promise.all(clients.map((c) => c.waitForIdle(90_000)));
    // Each finished session shows in the standby's list (how long after its turn ended: the lag a person sees).
    const ended = Date.now();
    let listed: { sessionId: string; status: string }[] = [];
    await until(
      'the finished sessions in the list read from the standby',
      async () => {
        const { status, body } = await get('/v1/sessions?limit=100');
        listed = status === 200 ? (body.sessions as typeof listed) : [];
        return load.every((id) => listed.some((x) => x.sessionId === id && x.status === 'idle'));
      },
      30_000,
    );
    const visibleAfterMs = Date.now() - ended;
    const usage = await get('/v1/usage');
    // The ingress's lagging pool really is on the standby: the app's login has connections there.
    const onStandby = await pg.queryNode<{ n: number }>(
      standby,
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend'`,
      [APP_LOGIN],
    );
    await Promise.all(clients.map((c) => within('closing a socket', 35_000, c.close())));
    // A standby that falls behind: its replay paused (as a long query on it can hold replay; under
    // Patroni's maintenance mode, else Patroni resumes it at once), a turn is written; the gauge
    // shows the lag and the list lacks the session until replay resumes.
    await pg.maintenance(true);
    await pg.queryNode(standby, 'SELECT pg_wal_replay_pause()');
    let paused: { lag?: number; listed: boolean; listedAfterResumeMs: number } = { listed: true, listedAfterResumeMs: -1 };
    try {
      const [late] = await submit(['standby-reads-late']);
      await late.waitForIdle(60_000);
      await within('closing a socket', 35_000, late.close());
      await sleep(1500);
      const lag = await within('scraping /metrics', 5000, readLagSeconds());
      const { body } = await get('/v1/sessions?limit=100');
      paused = { lag, listed: (body.sessions as typeof listed).some((x) => x.sessionId === 'standby-reads-late'), listedAfterResumeMs: -1 };
    } finally {
      await pg.queryNode(standby, 'SELECT pg_wal_replay_resume()');
      await pg.maintenance(false);
    }
    const resumed = Date.now();
    await until("the late session in the standby's list once replay resumed", async () => {
      const { body } = await get('/v1/sessions?limit=100');
      return (body.sessions as typeof listed).some((x) => x.sessionId === 'standby-reads-late');
    });
    paused.listedAfterResumeMs = Date.now() - resumed;
    process.stdout.write(
      `standby reads: replay lag on /metrics while 4 turns streamed ${lags.map((l) => (l * 1000).toFixed(0)).join(', ')} ms (max ${(Math.max(...lags) * 1000).toFixed(0)} ms); finished sessions listed from the standby ${visibleAfterMs} ms after the last ended; the app's connections on the standby ${onStandby[0].n}; with replay paused: lag ${paused.lag?.toFixed(1)} s, late session listed ${paused.listed}, listed ${paused.listedAfterResumeMs} ms after resuming\n`,
    );
    expect({ listedWhilePaused: paused.listed, lagShown: (paused.lag ?? 0) > 1 }).toEqual({ listedWhilePaused: false, lagShown: true });
    expect(await pg.inRecovery(standby)).toBe(true);
    expect(onStandby[0].n).toBeGreaterThan(0);
    expect(usage.status).toBe(200);
    expect(lags.length).toBeGreaterThan(0);
    expect(lags.every((l) => l >= 0 && l < 10)).toBe(true);
  },
);

it('Postgres switchover (patronictl switchover): the leader stops cleanly, the synchronous standby takes over, nothing acknowledged is lost', async () => {
  let switched = { from: '', to: '' };
  const row = await underFailover('postgres-switchover', async () => {
    switched = await pg.switchover();
  });
  expect((await pg.leader())?.name).toBe(switched.to);
  expectNothingLost(row);
  // The old leader follows the new one as its synchronous standby before the next fault.
  expect((await pg.untilSynchronous()).name).toBe(switched.from);
});

it('Postgres primary stopped cleanly (SIGTERM to its Patroni, as `systemctl stop patroni` does): the synchronous standby takes over, nothing acknowledged is lost', async () => {
  const sync = await pg.untilSynchronous();
  let stopped: Awaited<ReturnType<HaPostgres['stopLeader']>> | undefined;
  const row = await underFailover('postgres-primary-clean-stop', async () => {
    stopped = await pg.stopLeader();
  });
  const leader = await pg.leader();
  expect(leader?.name).toBe(sync.name);
  expect(leader?.name).not.toBe(stopped?.name);
  expectNothingLost(row);
  // Its machine comes back: Patroni rejoins it as the synchronous standby before the next fault.
  if (stopped) await pg.restart(stopped);
  expect((await pg.untilSynchronous(120_000)).name).toBe(stopped?.name);
});

it('Postgres primary partitioned from its standby and etcd (iptables DROP in its network namespace): Patroni demotes it, the standby is promoted, nothing acknowledged is lost', async () => {
  const sync = await pg.untilSynchronous();
  let cut: Awaited<ReturnType<HaPostgres['partitionLeader']>> | undefined;
  // The isolated node as the suite sees it directly (not through HAProxy; the partition leaves
  // the bridge's own address reachable), every 200 ms: when it stops being a writable primary,
  // when it answers again as a standby. It must stop before the standby is promoted (no two
  // primaries at once).
  const seen: Record<string, number> = {};
  let watching = true;
  let t0 = 0;
  const watch = async (node: Parameters<HaPostgres['inRecovery']>[0]) => {
    while (watching) {
      const state = await within('a direct check of the partitioned node', 3000, pg.inRecovery(node)).then(
        (r) => (r ? 'standby' : 'primary'),
        () => 'refusing',
      );
      seen[state] ??= Date.now() - t0;
      if (state !== 'primary') seen.notPrimary ??= Date.now() - t0;
      await sleep(200);
    }
  };
  let watcher: Promise<void> | undefined;
  // The isolated node's Patroni demotes it offline. Debian 12's Patroni 3.0.2 may begin a second
  // offline demotion from its main loop while the first runs ("AsyncExecutor is busy, demoting
  // from the main thread"; Patroni 4.0.6 removed it). When the first is still stopping Postgres,
  // both start it: one postmaster fails on the lock file, Patroni then runs pg_rewind against the
  // one that runs, removes its data directory and never rejoins (docs/high-availability.md). The
  // suite's wal_sender_timeout keeps the stop short; these count both on the node's whole output.
  let demotions = () => 0;
  let doubleStarts = () => 0;
  try {
    const row = await underFailover('postgres-primary-partitioned', async () => {
      t0 = Date.now();
      cut = await pg.partitionLeader();
      demotions = cut.node.proc.countLines(/Demoting self \(offline\)/);
      doubleStarts = cut.node.proc.countLines(/lock file "postmaster\.pid" already exists/);
      process.stdout.write(`postgres-primary-partitioned: ${cut.node.name} cut off at ${new Date(t0).toISOString()}\n`);
      watcher = watch(cut.node);
    });
    const leader = await pg.leader();
    expect(leader?.name).toBe(sync.name);
    expect(leader?.name).not.toBe(cut?.node.name);
    const at = (k: string) => (seen[k] === undefined ? 'never' : `${(seen[k] / 1000).toFixed(1)} s`);
    process.stdout.write(
      `postgres-primary-partitioned: the isolated primary stopped taking writes ${at('notPrimary')} after the partition (refusing connections ${at('refusing')}, a standby ${at('standby')}); served again ${(row.serveAgainMs / 1000).toFixed(1)} s; offline demotions begun by its Patroni: ${demotions()}, postmasters started on a running one: ${doubleStarts()}\n`,
    );
    process.stdout.write(
      `${cut?.node.name} Patroni:\n${(cut?.node.proc.log ?? '')
        .split('\n')
        .filter((l) => /demot|DCS|rewind|timeout/i.test(l))
        .slice(-15)
        .join('\n')}\n`,
    );
    expect(seen.notPrimary).toBeLessThan(row.serveAgainMs);
    expectNothingLost(row);
  } finally {
    watching = false;
    await watcher;
    cut?.heal();
    process.stdout.write(
      `postgres-primary-partitioned: healed at ${new Date().toISOString()}, ${((Date.now() - t0) / 1000).toFixed(1)} s after the partition\n`,
    );
  }
  // The partition heals: Patroni rewinds the old primary and it follows the new one as its
  // synchronous standby before the next fault. Two postmasters started at once (which may happen
  // after the heal: the stop waits for the WAL sender) are named first, as the cause.
  const rejoined = await pg.untilSynchronous(120_000).catch((e: Error) => e);
  expect({ postmastersStartedOnARunningOne: doubleStarts() }).toEqual({ postmastersStartedOnARunningOne: 0 });
  if (rejoined instanceof Error) throw new Error(`${rejoined.message}\n${pg.logs(12_000)}`);
  expect(rejoined.name).toBe(cut?.node.name);
});

it('Postgres primary machine lost (Patroni and its Postgres kill -9): the synchronous standby takes over, nothing acknowledged is lost', async () => {
  const sync = await pg.untilSynchronous();
  let killed = '';
  const row = await underFailover('postgres-primary-kill9', async () => {
    killed = (await pg.killLeader()).name;
  });
  const leader = await pg.leader();
  expect(leader?.name).toBe(sync.name);
  expect(leader?.name).not.toBe(killed);
  expectNothingLost(row);
});

it('Redis primary kill -9: Sentinel promotes the replica, the hub follows it, the reconciler recovers what it had not received', async () => {
  const before = await redis.primaryPort();
  const row = await underFailover('redis-primary-kill9', async () => {
    await redis.killPrimary();
  });
  expect(await redis.primaryPort()).not.toBe(before);
  expectNothingLost(row);
  // The CLI follows the Sentinels as the apps do: its REDIS_URL still names the killed primary.
  expect(hub.env().REDIS_URL).toBe(`redis://127.0.0.1:${before}`);
  const status = await cli(['status', '--json'], hub.env(), 30_000);
  const report = JSON.parse(status.stdout || '{}') as { workers?: { queue: string; workers: number }[] };
  // Exit 0: workers are connected (to the promoted replica) and no turn is stuck.
  expect({ code: status.code, workersSeen: report.workers?.some((w) => w.workers > 0) }).toEqual({ code: 0, workersSeen: true });
});

it('PgBouncer in transaction pooling (Debian 12 ships 1.18) breaks three things the hub relies on: its per-connection named statement, LISTEN, session advisory locks', async () => {
  // One server connection, so every client of the pooler shares it in turn, as a busy pooler's do.
  const tx = await HaPgBouncer.start(pg, 'transaction', ['postgres', APP_LOGIN], 1);
  const pool = createPool(tx.url(APP_LOGIN), { max: 4 });
  const clients: Client[] = [];
  const open = async (url: string) => {
    const c = new Client({ connectionString: url, connectionTimeoutMillis: 5000, query_timeout: 5000 });
    c.on('error', () => undefined);
    clients.push(c);
    await c.connect();
    return c;
  };
  try {
    // 1. Each scoped statement carries `hub_scope`, parsed once per client connection (scope.ts):
    //    the pooler hands the client another server connection, where it is missing or already there.
    const db = asTenant(pool, hub.tenantId);
    const results = await within(
      'scoped statements through PgBouncer',
      30_000,
      Promise.allSettled(Array.from({ length: 8 }, () => db.query('SELECT count(*) FROM read_sessions'))),
    );
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((m) => /prepared statement "hub_scope" (does not exist|already exists)/.test(m))).toBe(true);

    // 2. LISTEN is accepted and its notifications never arrive (ingress's key cache would keep a revoked key).
    const listener = await open(tx.url(APP_LOGIN));
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('LISTEN hub_ha_probe');
    const direct = await open(pg.url);
    await direct.query(`NOTIFY hub_ha_probe, 'x'`);
    const control = await open(pg.url);
    control.on('notification', (n) => heard.push(`direct:${n.channel}`));
    await control.query('LISTEN hub_ha_probe');
    await direct.query(`NOTIFY hub_ha_probe, 'y'`);
    await until('the direct listener to hear its notification', async () => heard.includes('direct:hub_ha_probe'), 10_000);
    await listener.query('SELECT 1'); // the pooler would deliver anything it had kept now
    expect(heard).toEqual(['direct:hub_ha_probe']);

    // 3. A session advisory lock (a projection runner's leadership) is held by the server
    //    connection, which the next client gets: two runners both "hold" it.
    const [a, b] = [await open(tx.url(APP_LOGIN)), await open(tx.url(APP_LOGIN))];
    const take = async (c: Client) => (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(4242) AS ok')).rows[0].ok;
    expect([await take(a), await take(b)]).toEqual([true, true]);
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await pool.end();
    await tx.destroy();
  }
});
