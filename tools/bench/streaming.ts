/**
 * Density (issue 31): many streaming turns in flight at once, on a hub at its defaults.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/streaming.ts \
 *     [--levels 300,1000] [--turns-per-level 2] [--ingresses 1] [--workers 1] [--prompt "long answer 100"]
 *
 * Starts a real stack (fresh database, its own Redis server, N ingresses and M workers through
 * `bin/hub`, every setting at its default: the offline model at its default pace), then runs the
 * streaming workload (lib/streaming-load.ts): first one turn at a time (a turn alone), then each
 * level with that many sessions in flight and `turns-per-level` × level turns in all. For each it
 * prints turn time p50/p99 (and p50 as a multiple of a turn alone), turns/s, failed turns, the
 * longest silence inside a stream (p99 and max), the peak of Postgres connections held by the
 * hub (its database's backends) and the peak RSS of its processes, and the CPU each part used per
 * turn (ingress, worker, Postgres, Redis, the load itself): on this 2-core box everything shares
 * the cores, so CPU per turn is what a change moves first. Progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { WorkerConfig } from '@hub/config';
import { HubStack, testServerUrl, type HubProcess } from '@hub/testing';
import { cpuBetween, cpuByPid, cpuMs, postgresPidsOf, rssKb, withDescendants } from './lib/cpu';
import { startPrivateRedis } from './lib/private-redis';
import { PHASES, streamingLoad, type StreamingResult } from './lib/streaming-load';
import { freePort, quantileBetween, readWorkers, type WorkerSnapshot } from './lib/worker-metrics';

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '300,1000' },
    'turns-per-level': { type: 'string', default: '2' },
    ingresses: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1' },
    prompt: { type: 'string', default: 'long answer 100' },
    alone: { type: 'string', default: '5' },
    // Experiments only (the numbers that count are at the defaults): K=V,K=V for every worker / ingress.
    'worker-env': { type: 'string', default: '' },
    'ingress-env': { type: 'string', default: '' },
    // A folder for V8 CPU profiles of every hub process (written as they stop, with SIGTERM).
    profile: { type: 'string' },
  },
});
const LEVELS = values.levels.split(',').map(Number);
const PER_LEVEL = Number(values['turns-per-level']);

/** Peaks of what the hub holds while a level runs, sampled every 250 ms. */
class Peaks {
  connections = 0;
  rssMb = 0;
  /** The admission gate's lowest intake over the workers (ADR 0028). */
  intakeMin = Infinity;
  private readonly timer: NodeJS.Timeout;
  private polling = Promise.resolve();

  constructor(
    private readonly admin: Client,
    private readonly database: string,
    private readonly pids: () => number[],
    private readonly healthPorts: readonly number[],
  ) {
    this.timer = setInterval(() => void (this.polling = this.polling.then(() => this.sample())), 250);
  }

  private async sample(): Promise<void> {
    const { rows } = await this.admin
      .query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [this.database])
      .catch(() => ({ rows: [{ n: 0 }] }));
    this.connections = Math.max(this.connections, rows[0].n);
    let kb = 0;
    for (const pid of withDescendants(this.pids())) kb += rssKb(pid);
    this.rssMb = Math.max(this.rssMb, kb / 1024);
    const workers = await readWorkers(this.healthPorts).catch(() => undefined);
    if (workers) this.intakeMin = Math.min(this.intakeMin, workers.intake);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await this.sample();
  }
}

/** CPU ms used so far by each part of what a level runs on (Postgres apart: see postgresPidsOf). */
function cpuNow(stack: HubStack, redisPid: number): Record<Exclude<CpuPart, 'postgres'>, number> {
  const sum = (pids: number[]) => pids.reduce((n, pid) => n + (cpuMs(pid) ?? 0), 0);
  const self = process.cpuUsage();
  return {
    ingress: sum(withDescendants([stack.ingress, ...stack.moreIngresses].map((p) => p.child.pid as number))),
    worker: sum(withDescendants(stack.workers.map((p) => p.child.pid as number))),
    redis: sum([redisPid]),
    load: (self.user + self.system) / 1000,
  };
}

/** Rows written per table and transactions committed in the hub's database so far (Postgres's own counters). */
async function tableWrites(db: Client): Promise<Record<string, number>> {
  const { rows } = await db.query<{ name: string; n: string }>(
    `SELECT relname AS name, (n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_user_tables
     UNION ALL SELECT '(commits)', xact_commit::text FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

/** The log's highest position: where a level's events start. */
async function logHead(db: Client): Promise<number> {
  const { rows } = await db.query<{ p: string }>('SELECT COALESCE(max(global_position), 0)::text AS p FROM events');
  return Number(rows[0].p);
}

/**
 * The same turns seen from the log (each event's commit-time `created_at`), p50 in ms: from the
 * submit's `TurnStarted` (ingress starts the turn with the request) to the worker's first event,
 * `ModelCallStarted` (the queue and the session load), then to the first `TextDelta` (the model's
 * first words and the first window), then to the last `TextDelta`. Beside the client's phases it
 * tells the hub's own time from the fan-out's.
 */
const LOG_PHASES = ['toWorker', 'firstText', 'lastText'] as const;
async function logPhases(db: Client, after: number): Promise<Record<(typeof LOG_PHASES)[number], number>> {
  const { rows } = await db.query<Record<(typeof LOG_PHASES)[number], number>>(
    `WITH t AS (
       SELECT stream_id, data->>'turnId' AS turn,
              min(created_at) FILTER (WHERE type = 'TurnStarted') AS started,
              min(created_at) FILTER (WHERE type = 'ModelCallStarted') AS called,
              min(created_at) FILTER (WHERE type = 'TextDelta') AS first_text,
              max(created_at) FILTER (WHERE type = 'TextDelta') AS last_text
         FROM events WHERE global_position > $1 AND data->>'turnId' IS NOT NULL GROUP BY 1, 2)
     SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM called - started) * 1000) AS "toWorker",
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_text - called) * 1000) AS "firstText",
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM last_text - first_text) * 1000) AS "lastText"
       FROM t WHERE last_text IS NOT NULL`,
    [after],
  );
  return rows[0];
}

/** A level's queue waits and appends, from two readings of the workers' /metrics. */
function workerLine(before: WorkerSnapshot, after: WorkerSnapshot, intakeMin: number): string {
  const ms = (buckets: 'queueWait' | 'append', q: number) => {
    const s = quantileBetween(before[buckets], after[buckets], q);
    return Number.isFinite(s) ? `≤ ${Math.round(s * 1000)}` : Number.isNaN(s) ? '-' : '> largest bucket';
  };
  return `${ms('queueWait', 0.5)} / ${ms('queueWait', 0.99)} ms, ${ms('append', 0.5)} / ${ms('append', 0.99)} ms, ${intakeMin}`;
}

const CPU_PARTS = ['ingress', 'worker', 'postgres', 'redis', 'load'] as const;
type CpuPart = (typeof CPU_PARTS)[number];

/** `K=V,K=V` as an environment. */
function envOf(spec: string): Record<string, string> {
  return Object.fromEntries(
    spec
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  // The worker's offline model at its default pace: HubStack's workers otherwise run it at 0.
  const profiled: Record<string, string> = values.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values.profile}` } : {};
  const stack = await HubStack.start({
    label: 'streaming',
    // Added below, each with a health port of its own: its /metrics says what the queue and the appends did.
    workers: 0,
    workerEnv: { HUB_OFFLINE_DELAY_MS: String(WorkerConfig.parse({}).HUB_OFFLINE_DELAY_MS), ...profiled, ...envOf(values['worker-env']) },
    ingressEnv: { ...profiled, ...envOf(values['ingress-env']) },
    redisUrl: redis.url,
  });
  const healthPorts: number[] = [];
  const admin = new Client({ connectionString: testServerUrl() });
  await admin.connect();
  const hubDb = new URL(testServerUrl());
  hubDb.pathname = new URL(stack.appDatabaseUrl).pathname;
  const db = new Client({ connectionString: hubDb.toString() });
  await db.connect();
  try {
    for (let i = 0; i < Number(values.workers); i++) {
      const port = await freePort();
      healthPorts.push(port);
      await stack.addWorker({ HUB_WORKER_HEALTH_PORT: String(port) });
    }
    const urls = [stack.url];
    for (let i = 1; i < Number(values.ingresses); i++) urls.push((await stack.addIngress()).url);
    const { apiKey } = await stack.createTenant('streaming');
    const targets = urls.map((url) => ({ url, apiKey }));
    const database = new URL(stack.appDatabaseUrl).pathname.slice(1);
    const processes = (): HubProcess[] => [stack.ingress, ...stack.moreIngresses, ...stack.workers];
    const pids = () => processes().map((p) => p.child.pid as number);
    process.stderr.write(`stack up: ${urls.length} ingress(es), ${stack.workers.length} worker(s); a turn alone first\n`);
    const alone = await streamingLoad(targets, { inFlight: 1, turns: Number(values.alone), prompt: values.prompt });
    const rows: {
      r: StreamingResult;
      connections: number;
      rssMb: number;
      cpu: Record<CpuPart, number>;
      writes: string;
      log: Record<(typeof LOG_PHASES)[number], number>;
      inWorkers: string;
    }[] = [];
    for (const level of LEVELS) {
      const peaks = new Peaks(admin, database, pids, healthPorts);
      const workers0 = await readWorkers(healthPorts);
      const cpu0 = cpuNow(stack, redis.pid);
      const pg0 = cpuByPid(await postgresPidsOf(admin, database));
      const writes0 = await tableWrites(db);
      const head0 = await logHead(db);
      process.stderr.write(`level ${level}: ${level * PER_LEVEL} turns\n`);
      const r = await streamingLoad(targets, {
        inFlight: level,
        turns: level * PER_LEVEL,
        prompt: values.prompt,
        progress: (ended, failed) => process.stderr.write(`  ${ended} of ${level * PER_LEVEL} ended, ${failed} failed\n`),
      });
      await peaks.stop();
      const cpu1 = cpuNow(stack, redis.pid);
      const pg1 = cpuByPid(await postgresPidsOf(admin, database));
      const cpu = Object.fromEntries(CPU_PARTS.map((k) => [k, (k === 'postgres' ? cpuBetween(pg0, pg1) : cpu1[k] - cpu0[k]) / r.turns])) as Record<
        CpuPart,
        number
      >;
      // Backends report their counters at most once a second.
      await new Promise((r) => setTimeout(r, 1500));
      const writes1 = await tableWrites(db);
      const writes = Object.entries(writes1)
        .map(([k, v]) => [k, (v - (writes0[k] ?? 0)) / r.turns] as const)
        .filter(([, v]) => v >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ');
      const inWorkers = workerLine(workers0, await readWorkers(healthPorts), peaks.intakeMin);
      rows.push({ r, connections: peaks.connections, rssMb: peaks.rssMb, cpu, writes, log: await logPhases(db, head0), inWorkers });
    }
    const lines = [
      `streaming: "${values.prompt}", ${urls.length} ingress(es), ${stack.workers.length} worker(s), defaults; a turn alone: p50 ${(alone.p50Ms / 1000).toFixed(2)} s`,
      '',
      '| in flight | turns | p50 (× alone) | p99 | turns/s | failed | longest silence p99 / max | Postgres connections (peak) | RSS of hub processes (peak) |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        ({ r, connections, rssMb }) =>
          `| ${r.inFlight} | ${r.turns} | ${(r.p50Ms / 1000).toFixed(2)} s (${(r.p50Ms / alone.p50Ms).toFixed(2)}×) | ${(r.p99Ms / 1000).toFixed(2)} s | ${r.turnsPerSec.toFixed(1)} | ${r.failed} | ${r.silenceP99Ms.toFixed(0)} / ${r.silenceMaxMs.toFixed(0)} ms | ${connections} | ${rssMb.toFixed(0)} MB |`,
      ),
    ];
    lines.push(
      '',
      `where a turn's time went (p50 of each phase, ms): ${PHASES.join(' / ')}`,
      `  alone: ${PHASES.map((p) => alone.phases[p].toFixed(0)).join(' / ')}`,
    );
    for (const { r } of rows) lines.push(`  ${r.inFlight} in flight: ${PHASES.map((p) => r.phases[p].toFixed(0)).join(' / ')}`);
    lines.push('', `the same turns in the log (p50, ms, commit times): ${LOG_PHASES.join(' / ')}`);
    for (const { r, log } of rows) lines.push(`  ${r.inFlight} in flight: ${LOG_PHASES.map((p) => log[p].toFixed(0)).join(' / ')}`);
    lines.push('', "in the workers (their /metrics; a bucket's upper bound): queue wait p50 / p99, append p50 / p99, the gate's lowest intake");
    for (const { r, inWorkers } of rows) lines.push(`  ${r.inFlight} in flight: ${inWorkers}`);
    lines.push('', `CPU per turn (ms): ${CPU_PARTS.join(' / ')} (Postgres: the hub database's backends and the server's own processes)`);
    for (const { r, cpu } of rows) lines.push(`  ${r.inFlight} in flight: ${CPU_PARTS.map((k) => cpu[k].toFixed(1)).join(' / ')}`);
    lines.push('', 'Postgres per turn (rows written by table, transactions committed):');
    for (const { r, writes } of rows) lines.push(`  ${r.inFlight} in flight: ${writes}`);
    for (const { r } of rows) if (r.failures.length) lines.push('', `failures at ${r.inFlight}:`, ...r.failures.map((f) => `  - ${f}`));
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await admin.end();
    await db.end();
    // A profile is written when its process exits on its own: stop them gently first.
    if (values.profile) await Promise.all([stack.ingress, ...stack.moreIngresses, ...stack.workers].map((p) => p.kill('SIGTERM')));
    await stack.stop();
    await redis.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
