/**
 * What one trivial turn costs, process by process: the cost model of issue 18.
 *
 *   node -r @swc-node/register tools/bench/turn-cost.ts [--turns 500] [--concurrency 16] [--cpu-prof DIR]
 *
 * Starts a real stack (one ingress, one worker, offline model at zero delay, a Redis server of its
 * own), warms it up, then runs `--turns` one-call turns ("hello", a fresh session each, over the
 * transport WebSocket, to the end of the turn) at `--concurrency`, and prints per turn: CPU
 * milliseconds of ingress, worker, the Postgres backends of the stack's own database and its
 * Redis (from /proc, lib/cpu.ts); Postgres transactions, rows inserted and statements; Redis
 * commands by name; events appended; and runs/s with p50/p99. Other work on the machine does not
 * count in these (it slows runs/s and latency, not CPU per turn).
 * With `--cpu-prof DIR` the ingress and worker write V8 CPU profiles there (read them with
 * `tools/bench/cpuprofile-top.ts`). With `--log-statements SERVER_LOG` (e.g.
 * /var/log/postgresql/postgresql-15-main.log) the stack's database logs every statement
 * with its duration (`ALTER DATABASE … SET log_min_duration_statement = 0`) and the bench prints
 * the statements per turn between two markers it logs around the measured turns, and the time
 * spent on each kind, most expensive first.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { HubStack, TransportTestClient, connectToServer } from '@hub/testing';
import { CpuWindow, withDescendants } from './lib/cpu';
import { startPrivateRedis } from './lib/private-redis';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '16' },
    'cpu-prof': { type: 'string' },
    'log-statements': { type: 'string' },
  },
});
const TURNS = Number(values.turns);
const CONCURRENCY = Number(values.concurrency);
async function redisCommands(r: Redis): Promise<Map<string, number>> {
  const info = await r.info('commandstats');
  const out = new Map<string, number>();
  for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) out.set(m[1], Number(m[2]));
  return out;
}

async function pgStats(db: Client, name: string): Promise<{ xacts: number; inserted: number }> {
  const { rows } = await db.query<{ x: string; i: string }>('SELECT xact_commit::text AS x, tup_inserted::text AS i FROM pg_stat_database WHERE datname = $1', [
    name,
  ]);
  return { xacts: Number(rows[0]?.x ?? 0), inserted: Number(rows[0]?.i ?? 0) };
}

/** A statement the server log shows (the database logs every statement of new connections). */
async function marker(databaseUrl: string, text: string): Promise<void> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`SELECT '${text}'`);
  await c.end();
}

/**
 * Statements per turn between the markers in the server log, by their first words, with the
 * time Postgres spent on each kind (parse, bind and execute phases summed; wall time in the
 * backend, so a wait on a lock counts too).
 */
function statementsPerTurn(logFile: string): void {
  const lines = readFileSync(logFile, 'utf8').split('\n');
  const begin = lines.findLastIndex((l) => l.includes("SELECT 'turn-cost:begin'"));
  const end = lines.findLastIndex((l) => l.includes("SELECT 'turn-cost:end'"));
  if (begin < 0 || end < begin) return void process.stdout.write(`no markers in ${logFile}\n`);
  const kinds = new Map<string, { n: number; ms: number }>();
  let kind = '';
  let pendingMs = 0;
  const count = (k: string, ms: number, statement: boolean) => {
    const key = k.replace(/\s+/g, ' ').slice(0, 70);
    const c = kinds.get(key) ?? { n: 0, ms: 0 };
    if (statement) c.n++;
    c.ms += ms;
    kinds.set(key, c);
  };
  for (const line of lines.slice(begin + 1, end)) {
    const m = /LOG: {2}duration: ([\d.]+) ms {2}(statement|execute [^:]*|bind [^:]*|parse [^:]*): ?(.*)$/.exec(line);
    if (m) {
      kind = m[3].trim();
      const ms = Number(m[1]);
      if (kind) count(kind, ms, m[2] === 'statement' || m[2].startsWith('execute'));
      else pendingMs = ms;
      continue;
    }
    // A statement that starts on the next line: named by its first line of text.
    if (kind === '' && line.trim() && !/^\d{4}-\d\d-\d\d /.test(line)) {
      kind = line.trim();
      count(kind, pendingMs, true);
      pendingMs = 0;
    }
  }
  const all = [...kinds.values()];
  const total = all.reduce((a, b) => a + b.n, 0);
  const ms = all.reduce((a, b) => a + b.ms, 0);
  process.stdout.write(`postgres statements per turn: ${(total / TURNS).toFixed(1)}, ${(ms / TURNS).toFixed(2)} ms in the backends\n`);
  for (const [k, c] of [...kinds.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20)) {
    process.stdout.write(`  ${(c.n / TURNS).toFixed(2).padStart(6)}  ${(c.ms / TURNS).toFixed(3).padStart(7)} ms  ${k}\n`);
  }
}

async function oneTurn(stack: HubStack, apiKey: string, session: string): Promise<number> {
  const t0 = performance.now();
  const c = await TransportTestClient.connect(stack.url, apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'hello' }]);
  await c.waitFor('the end of the turn', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete', 60_000);
  await c.close();
  return performance.now() - t0;
}

async function runMany(stack: HubStack, apiKey: string, n: number, concurrency: number, tag: string): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        latencies.push(await oneTurn(stack, apiKey, `${tag}-${i}`));
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const prof: Record<string, string> = values['cpu-prof'] ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values['cpu-prof']}` } : {};
  const privateRedis = await startPrivateRedis();
  const stack = await HubStack.start({
    label: 'cost',
    workers: 1,
    ingressEnv: { ...prof },
    workerEnv: { HUB_OFFLINE_DELAY_MS: '0', ...prof },
    redisUrl: privateRedis.url,
  });
  const redis = new Redis(privateRedis.url);
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const admin = await connectToServer();
  const dbName = new URL(stack.databaseUrl).pathname.slice(1);
  try {
    const { apiKey } = await stack.createTenant('cost');
    process.stderr.write(`turn-cost: warming up\n`);
    await runMany(stack, apiKey, 100, CONCURRENCY, 'warm');
    if (values['log-statements']) {
      await db.query(`ALTER DATABASE "${dbName}" SET log_min_duration_statement = 0`);
      process.stderr.write(`turn-cost: statements of ${dbName} go to the server log; new connections only: restarting ingress and worker\n`);
      await stack.restartIngress();
      await stack.workers[0].kill('SIGTERM');
      stack.workers.splice(0, 1);
      await stack.addWorker({ HUB_OFFLINE_DELAY_MS: '0' });
      await runMany(stack, apiKey, 10, CONCURRENCY, 'warm2');
      await marker(stack.databaseUrl, 'turn-cost:begin');
    }
    const ingressPid = stack.ingress.child.pid as number;
    const workerPid = stack.workers[0].child.pid as number;
    const ingressCpu = await CpuWindow.open({ server: () => withDescendants([ingressPid]) }, admin);
    const rest = await CpuWindow.open({ server: () => withDescendants([workerPid]), database: dbName, redis: () => [privateRedis.pid] }, admin);
    const before = { cmds: await redisCommands(redis), pg2: await pgStats(db, dbName), events: await stack.countAllEvents() };
    process.stderr.write(`turn-cost: ${TURNS} turns at concurrency ${CONCURRENCY}\n`);
    const t0 = performance.now();
    const lat = await runMany(stack, apiKey, TURNS, CONCURRENCY, 'run');
    const secs = (performance.now() - t0) / 1000;
    if (values['log-statements']) await marker(stack.databaseUrl, 'turn-cost:end');
    const [ing, others] = [await ingressCpu.close(), await rest.close()];
    const after = { cmds: await redisCommands(redis), pg2: await pgStats(db, dbName), events: await stack.countAllEvents() };
    const per = (a: number, b = 0) => ((a - b) / TURNS).toFixed(2);
    const total = ing.server + others.server + others.postgres + others.redis;
    process.stdout.write(
      `turns=${TURNS} concurrency=${CONCURRENCY}  runs/s=${(TURNS / secs).toFixed(1)}  p50=${pct(lat, 50).toFixed(1)} ms  p99=${pct(lat, 99).toFixed(1)} ms\n`,
    );
    process.stdout.write(
      `CPU ms per turn: ingress ${per(ing.server)}  worker ${per(others.server)}  postgres ${per(others.postgres)}  redis ${per(others.redis)}  total ${per(total)}\n`,
    );
    process.stdout.write(
      `per turn: events ${per(after.events, before.events)}  pg transactions ${per(after.pg2.xacts, before.pg2.xacts)}  pg rows inserted ${per(after.pg2.inserted, before.pg2.inserted)}\n`,
    );
    const cmds = [...after.cmds.entries()]
      .map(([k, v]) => [k, (v - (before.cmds.get(k) ?? 0)) / TURNS] as const)
      .filter(([, v]) => v >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    const totalCmds = cmds.reduce((n, [, v]) => n + v, 0);
    process.stdout.write(
      `redis commands per turn: ${totalCmds.toFixed(1)} (${cmds
        .slice(0, 12)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')})\n`,
    );
    process.stdout.write(`(postgres: the backends of the stack's own database, not the server's shared writer processes; redis: the stack's own server)\n`);
    if (values['log-statements']) statementsPerTurn(values['log-statements']);
    if (values['cpu-prof']) {
      // A profile is written when the process exits cleanly.
      await Promise.all([stack.ingress.kill('SIGTERM'), ...stack.workers.map((w) => w.kill('SIGTERM'))]);
      await Promise.all([stack.ingress.exited, ...stack.workers.map((w) => w.exited)]);
      process.stderr.write(`turn-cost: CPU profiles in ${values['cpu-prof']}\n`);
    }
  } finally {
    await db.end();
    await admin.end();
    redis.disconnect();
    await stack.stop();
    await privateRedis.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
