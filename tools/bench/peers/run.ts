/**
 * The peer benchmark of issue 18: the same trivial agent run against LangGraph's JS Agent Server,
 * DBOS Transact and the hub, one at a time on this machine, side by side.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node -r ./node_modules/@swc-node/register/index.js \
 *     tools/bench/peers/run.ts [--runs 1000] [--concurrency 16,64] [--warmup 50] [--sides langgraph,dbos,hub]
 *
 * A run is: a fresh thread / workflow / session, one prompt that an offline model answers at once
 * in one model call, read to the end of the run. Per side and concurrency it measures runs/s,
 * p50/p99 run latency (client side, request to end of run) and the CPU time per run of the
 * side's server processes (/proc/PID/stat utime+stime), of the Postgres backends on the side's
 * own database and, for the hub, of the Redis server. See README.md next to this file.
 * Progress goes to stderr, the tables to stdout.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { TransportTestClient, connectToServer } from '@hub/testing';
import { CpuWindow, machineBusyMs, withDescendants, type CpuSources, type Group } from '../lib/cpu';
import { fetchOk, log, startDbosServer, startHub, startLangGraphServer } from './servers';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16,64' },
    warmup: { type: 'string', default: '50' },
    sides: { type: 'string', default: 'langgraph,dbos,hub' },
  },
});
const RUNS = Number(values.runs);
const LEVELS = values.concurrency.split(',').map(Number);
const WARMUP = Number(values.warmup);
const SIDES = values.sides.split(',').map((s) => s.trim());
const PROMPT = 'hello';
const RUN_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Sides

interface Running {
  /** One run, to its end; throws when it did not end as it should. */
  oneRun(id: string): Promise<void>;
  cpu: CpuSources;
  stop(): Promise<void>;
}

interface Side {
  name: string;
  start(): Promise<Running>;
}

const langgraph: Side = {
  name: 'LangGraph',
  async start() {
    const server = await startLangGraphServer();
    const json = { 'content-type': 'application/json' };
    return {
      async oneRun() {
        const thread = (await (await fetchOk(`${server.url}/threads`, { method: 'POST', headers: json, body: '{}' }, RUN_TIMEOUT_MS)).json()) as {
          thread_id: string;
        };
        const res = await fetchOk(
          `${server.url}/threads/${thread.thread_id}/runs/stream`,
          {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ assistant_id: 'agent', input: { messages: [{ role: 'human', content: PROMPT }] }, stream_mode: ['values'] }),
          },
          RUN_TIMEOUT_MS,
        );
        const body = await res.text(); // the SSE stream, read to its end
        if (/^event: error/m.test(body)) throw new Error(`run failed: ${body.slice(0, 500)}`);
        if (!body.includes('"type": "ai"')) throw new Error(`the stream ended without the model's answer: ${body.slice(-500)}`);
      },
      cpu: { server: () => withDescendants([server.child.pid as number]) },
      stop: () => server.stop(),
    };
  },
};

const dbos: Side = {
  name: 'DBOS',
  async start() {
    const { server, database, stop } = await startDbosServer();
    return {
      async oneRun(id) {
        const res = await fetchOk(
          `${server.url}/runs`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, prompt: PROMPT }) },
          RUN_TIMEOUT_MS,
        );
        const result = (await res.json()) as { status?: string; answer?: string };
        if (result.status !== 'complete' || !result.answer) throw new Error(`workflow ${id} ended with ${JSON.stringify(result).slice(0, 300)}`);
      },
      cpu: { server: () => withDescendants([server.child.pid as number]), database },
      stop,
    };
  },
};

const hub: Side = {
  name: 'hub',
  async start() {
    const { stack, redis, apiKey, stop } = await startHub('peers', { HUB_OFFLINE_DELAY_MS: '0' });
    /** The hub's own log lines about an error's correlation id (what the client is not told). */
    const explain = (errors: { message: string }[]): string => {
      const ids = errors.map((e) => /correlation id ([0-9a-f-]{36})/.exec(e.message)?.[1]).filter((x): x is string => !!x);
      const logs = [stack.ingress, ...stack.workers].flatMap((p) => p.stderr.split('\n'));
      const hits = ids.flatMap((id) => logs.filter((l) => l.includes(id)));
      return hits.length ? `; hub log: ${hits.join(' | ').slice(0, 1500)}` : '';
    };
    return {
      async oneRun(id) {
        const c = await TransportTestClient.connect(stack.url, apiKey, { session: id });
        try {
          await c.waitFor('the snapshot', (x) => x.state !== null, RUN_TIMEOUT_MS);
          c.send([{ type: 'submit', prompt: PROMPT }]);
          await c.waitFor(
            'the end of the turn',
            (x) => x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= 2 && x.lastAssistant()?.status === 'complete',
            RUN_TIMEOUT_MS,
          );
          const errors = c.errors();
          if (errors.length) throw new Error(`errors on the socket: ${JSON.stringify(errors).slice(0, 300)}${explain(errors)}`);
        } finally {
          await c.close();
        }
      },
      cpu: {
        server: () => withDescendants([stack.ingress.child.pid as number, ...stack.workers.map((w) => w.child.pid as number)]),
        database: new URL(stack.databaseUrl).pathname.slice(1),
        redis: () => [redis.pid],
      },
      stop,
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Load

interface Measured {
  runs: number;
  failures: number;
  firstFailure?: string;
  runsPerSec: number;
  p50: number;
  p99: number;
  cpu: Record<Group, number> & { total: number; client: number; machine: number };
}

const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : '-');

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function drive(
  r: Running,
  n: number,
  concurrency: number,
  tag: string,
): Promise<{ latencies: number[]; failures: number; firstFailure?: string; secs: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  let done = 0;
  const t0 = performance.now();
  const progress = setInterval(() => log(`  ${tag}: ${done}/${n}`), 5_000);
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const i = next++;
          const s = performance.now();
          try {
            await r.oneRun(`${tag}-${i}-${randomBytes(3).toString('hex')}`);
            latencies.push(performance.now() - s);
          } catch (e) {
            failures++;
            firstFailure ??= e instanceof Error ? e.message : String(e);
          }
          done++;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return { latencies: latencies.sort((a, b) => a - b), failures, firstFailure, secs: (performance.now() - t0) / 1000 };
}

async function measure(side: Side, admin: Client): Promise<Map<number, Measured> | { error: string }> {
  log(`${side.name}: starting (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  let running: Running;
  try {
    running = await side.start();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    log(`${side.name}: did not start: ${why}`);
    return { error: `did not start: ${why.split('\n')[0]}` };
  }
  const out = new Map<number, Measured>();
  try {
    log(`${side.name}: warming up (${WARMUP} runs at concurrency ${Math.min(16, WARMUP || 1)})`);
    const warm = await drive(running, WARMUP, Math.min(16, WARMUP || 1), 'warm');
    if (warm.failures === WARMUP && WARMUP > 0) throw new Error(`every warm-up run failed: ${warm.firstFailure}`);
    for (const c of LEVELS) {
      log(`${side.name}: ${RUNS} runs at concurrency ${c}`);
      const window = await CpuWindow.open(running.cpu, admin);
      const client0 = process.cpuUsage();
      const machine0 = machineBusyMs();
      const d = await drive(running, RUNS, c, `c${c}`);
      const client = process.cpuUsage(client0);
      const machine = machineBusyMs() - machine0;
      const cpu = await window.close();
      const per = (ms: number) => ms / RUNS;
      out.set(c, {
        runs: RUNS,
        failures: d.failures,
        firstFailure: d.firstFailure,
        runsPerSec: d.latencies.length / d.secs,
        p50: pct(d.latencies, 50),
        p99: pct(d.latencies, 99),
        cpu: {
          server: per(cpu.server),
          postgres: per(cpu.postgres),
          redis: per(cpu.redis),
          total: per(cpu.server + cpu.postgres + cpu.redis),
          client: per((client.user + client.system) / 1000),
          machine: per(machine),
        },
      });
      const m = out.get(c) as Measured;
      log(
        `${side.name} @${c}: ${m.runsPerSec.toFixed(1)} runs/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, CPU ${m.cpu.total.toFixed(2)} ms/run${d.failures ? `, ${d.failures} failed (${d.firstFailure})` : ''}`,
      );
    }
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    log(`${side.name}: failed: ${why}`);
    if (out.size === 0) return { error: `failed: ${why.split('\n')[0]}` };
  } finally {
    log(`${side.name}: stopping`);
    await running.stop().catch((e: unknown) => log(`${side.name}: stop failed: ${e instanceof Error ? e.message.slice(0, 2000) : String(e)}`));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Report

function table(results: [string, Map<number, Measured> | { error: string }][]): string {
  const lines: string[] = [];
  const hubResult = results.find(([n]) => n === 'hub')?.[1];
  const peers = results.filter(([n]) => n !== 'hub');
  const cols = [...results.map(([n]) => n), ...(hubResult ? peers.map(([n]) => `hub/${n}`) : [])];
  const W0 = 34;
  const W = 14;
  const row = (label: string, cells: string[]) => lines.push(label.padEnd(W0) + cells.map((c) => c.padStart(W)).join(''));
  for (const err of results.filter(([, r]) => !(r instanceof Map))) lines.push(`${err[0]}: ${(err[1] as { error: string }).error}`);
  for (const c of LEVELS) {
    lines.push('');
    lines.push(`concurrency ${c}, ${RUNS} runs each (after ${WARMUP} warm-up runs)`);
    row('', cols);
    const get = (r: Map<number, Measured> | { error: string } | undefined) => (r instanceof Map ? r.get(c) : undefined);
    const metric = (label: string, f: (m: Measured) => number, digits: number) => {
      const cells = results.map(([, r]) => (get(r) ? f(get(r) as Measured).toFixed(digits) : 'n/a'));
      const h = get(hubResult);
      if (hubResult) for (const [, r] of peers) cells.push(h && get(r) ? ratio(f(h), f(get(r) as Measured)) : 'n/a');
      row(label, cells);
    };
    metric('runs/s', (m) => m.runsPerSec, 1);
    metric('p50 run latency (ms)', (m) => m.p50, 1);
    metric('p99 run latency (ms)', (m) => m.p99, 1);
    row(
      'failed runs',
      results.map(([, r]) => (get(r) ? String(get(r)?.failures) : 'n/a')),
    );
    metric('CPU ms/run: server processes', (m) => m.cpu.server, 2);
    metric('CPU ms/run: Postgres (own db)', (m) => m.cpu.postgres, 2);
    metric('CPU ms/run: Redis (own server)', (m) => m.cpu.redis, 2);
    metric('CPU ms/run: total', (m) => m.cpu.total, 2);
    row(
      'CPU ms/run: bench client',
      results.map(([, r]) => (get(r) ? (get(r) as Measured).cpu.client.toFixed(2) : 'n/a')),
    );
    row(
      'CPU ms/run: whole machine',
      results.map(([, r]) => (get(r) ? (get(r) as Measured).cpu.machine.toFixed(2) : 'n/a')),
    );
    for (const [n, r] of results) if (get(r)?.firstFailure) lines.push(`  ${n}: first failure: ${get(r)?.firstFailure?.slice(0, 2000)}`);
  }
  lines.push('');
  lines.push('ratios are hub/peer: above 1x the hub is faster in runs/s, below 1x it is faster in latency and cheaper in CPU.');
  lines.push('server processes: LangGraph and DBOS their one node process; the hub its ingress and worker. Postgres: the backends');
  lines.push("connected to the side's own database (not the shared WAL writer/checkpointer). Redis: the hub's own redis-server, started for");
  lines.push('the run. bench client: this script (HTTP/WebSocket clients, parsing), on the same 2 cores, not in total.');
  lines.push('whole machine: every process on the box (all cores busy time from /proc/stat) during the window; well above total + client means');
  lines.push('other work was running at the same time and the numbers are disturbed.');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const known: Record<string, Side> = { langgraph, dbos, hub };
  const unknown = SIDES.filter((s) => !known[s]);
  if (unknown.length) throw new Error(`unknown side(s) ${unknown.join(', ')}; known: ${Object.keys(known).join(', ')}`);
  log(`${RUNS} runs per concurrency level (${LEVELS.join(', ')}), ${WARMUP} warm-up runs, sides: ${SIDES.join(', ')}; prompt "${PROMPT}"`);
  const admin = await connectToServer();
  const results: [string, Map<number, Measured> | { error: string }][] = [];
  try {
    for (const s of SIDES) results.push([known[s].name, await measure(known[s], admin)]);
  } finally {
    await admin.end();
  }
  process.stdout.write(`${table(results)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`peers bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
