import { verifyChains } from '@hub/event-store';
import { HubProcess, TransportTestClient } from '@hub/testing';
import { FaultHub, type Ledger } from '../../faults/src/fault-hub';
import { HaPostgres, HaRedis, REDIS_PRIMARY_NAME } from './ha-services';

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
let hub: FaultHub;
let expected = '';
interface Row extends Ledger {
  serveAgainMs: number;
  chainsBroken: number;
  replayExit: number | null;
  watchersIntact: string;
  healthDuring: string;
  crashed?: number;
}
const report: Record<string, Row> = {};

beforeAll(async () => {
  [pg, redis] = await Promise.all([HaPostgres.start(), HaRedis.start()]);
  hub = await FaultHub.start(pg, redis, 2, { HUB_REDIS_SENTINELS: redis.sentinelSetting, HUB_REDIS_SENTINEL_NAME: REDIS_PRIMARY_NAME });
  const [ref] = await hub.submit(['reference'], PROMPT);
  await ref.waitForIdle(60_000);
  expected = ref.lastAssistant()?.content ?? '';
  expect(expected.split(' ')).toHaveLength(120);
  await ref.close();
}, 300_000);

afterAll(async () => {
  const rows = Object.entries(report).map(
    ([fault, r]) =>
      `| ${fault} | ${(r.serveAgainMs / 1000).toFixed(1)} s | ${r.acknowledged} | ${r.lost} | ${r.duplicated} | ${r.chainsBroken === 0 ? 'yes' : `no (${r.chainsBroken})`} | ${r.replayExit === 0 ? 'yes' : 'no'} | ${r.watchersIntact} | ${r.healthDuring} | ${r.crashed} |`,
  );
  process.stdout.write(
    `\nHA suite results\n| fault | serve again | acknowledged | lost | duplicated | chains verify | read models = replay | watchers intact | /health/live, /health during | processes crashed |\n|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
  await hub?.stop();
  await Promise.all([pg?.destroy(), redis?.destroy()]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
async function probeUntilServed(name: string, t0: number, probes: string[], ms = 120_000): Promise<number> {
  let served = 0;
  const clients: TransportTestClient[] = [];
  for (let i = 0; !served && Date.now() - t0 < ms; i++) {
    const session = `${name}-probe-${i}`;
    probes.push(session);
    void (async () => {
      const c = await TransportTestClient.connect(hub.url, hub.apiKey, { session });
      clients.push(c);
      await c.waitFor('snapshot', (x) => x.state !== null, 30_000);
      c.send([{ type: 'submit', prompt: PROMPT }]);
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
  if (c.closeCode !== null) w = await TransportTestClient.connect(hub.url, hub.apiKey, { session, after: c.cursor }, {}, { state: c.state, cursor: c.cursor });
  await w
    .waitFor('the turn to end', (x) => x.state?.status === 'idle' && (x.lastAssistant()?.content.length ?? 0) >= expected.length, 120_000)
    .catch(() => undefined);
  const ok = w.lastAssistant()?.content === expected;
  await w.close();
  return ok;
}

async function underFailover(name: string, fault: () => Promise<void>): Promise<Row> {
  const load = Array.from({ length: LOAD_SESSIONS }, (_, i) => `${name}-${i}`);
  const clients = await hub.submit(load, PROMPT);
  await clients[0].waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 60, 60_000);
  const t0 = Date.now();
  await fault();
  await sleep(1500);
  const healthDuring = `${await status('/health/live')}, ${await status('/health')}`;
  const probes: string[] = [];
  const serveAgainMs = await probeUntilServed(name, t0, probes);
  const ledger = await hub.settle([...load, ...probes], expected, 180_000);
  const intact = await Promise.all(clients.map((c, i) => watcherEndsIntact(c, load[i])));
  const chains = await verifyChains(hub.pool, { tenantId: hub.tenantId });
  const replay = new HubProcess(['replay', '--all', '--tenant', hub.tenantId, '--wait', '60'], { ...hub.env(), DATABASE_URL: pg.url });
  replay.child.stdin?.end();
  const replayExit = await replay.exited;
  if (replayExit !== 0) process.stdout.write(`\n${name} replay:\n${replay.stdout.slice(-3000)}\n${replay.stderr.slice(-2000)}\n`);
  const { settledAt: _, ...counts } = ledger;
  const row: Row = {
    ...counts,
    serveAgainMs,
    chainsBroken: chains.broken.length,
    replayExit,
    watchersIntact: `${intact.filter(Boolean).length}/${intact.length}`,
    healthDuring,
  };
  report[name] = row;
  // Every hub process went through the failover without a restart (none crashed).
  row.crashed = [hub.ingress, ...hub.workers].filter((p) => !p.alive).length;
  if (row.lost || row.duplicated || row.crashed) process.stdout.write(`\n${name} processes:\n${processLogs()}\n`);
  return row;
}

function processLogs(): string {
  return [hub.ingress, ...hub.workers].map((p) => `--- ${p.child.spawnargs.slice(-1)[0]} alive=${p.alive}\n${p.stderr.slice(-2500)}`).join('\n');
}

function expectNothingLost(row: Row): void {
  expect(row).toEqual(
    expect.objectContaining({ crashed: 0, lost: 0, duplicated: 0, chainsBroken: 0, replayExit: 0, watchersIntact: `${LOAD_SESSIONS}/${LOAD_SESSIONS}` }),
  );
  expect(row.acknowledged).toBeGreaterThanOrEqual(LOAD_SESSIONS);
  // Liveness answers through the outage (no pod would be restarted); readiness may not.
  expect(row.healthDuring.startsWith('200,')).toBe(true);
}

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
});
