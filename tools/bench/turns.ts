/**
 * End-to-end turn throughput and latency, with the offline model at zero delay.
 *
 *   node -r @swc-node/register tools/bench/turns.ts [--sessions 20] [--turns 10] [--workers 1,2] [--traces none,otlp]
 *
 * Starts a real stack per worker count (fresh database, unique queue prefix, one ingress and N
 * worker processes), drives it over the Harness transport WebSocket, and prints: turns per
 * second; p50/p99 from submit to the first delta on the socket; and raw BullMQ no-op jobs per
 * second in the same run, so the hub's cost per turn can be read against the queue's own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { HubStack, TEST_REDIS_URL, TransportTestClient, uniqueQueuePrefix } from '@hub/testing';
import { pct } from './lib/percentile';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '20' },
    turns: { type: 'string', default: '10' },
    workers: { type: 'string', default: '1,2' },
    jobs: { type: 'string', default: '5000' },
    // `none,otlp`: each worker count with traces off and exported to an in-process OTLP receiver.
    traces: { type: 'string', default: 'none' },
  },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);

async function oneSession(stack: HubStack, apiKey: string, id: string, latencies: number[]): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null);
  for (let t = 0; t < TURNS; t++) {
    const framesBefore = c.frames.length;
    const done = (x: TransportTestClient) =>
      x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= (t + 1) * 2 && x.lastAssistant()?.status === 'complete';
    const t0 = performance.now();
    c.send([{ type: 'submit', prompt: `calculate ${t} + 1` }]);
    await c.waitFor('first delta', (x) => x.frames.length > framesBefore, 60_000);
    latencies.push(performance.now() - t0);
    await c.waitFor('turn end', done, 60_000);
  }
  await c.close();
}

/** An OTLP/HTTP (JSON) receiver that counts spans by instrumentation scope and drops them (what a collector costs the hub, minus the network). */
async function otlpSink(): Promise<{
  url: string;
  spans: () => number;
  byScope: () => [string, number][];
  byName: () => [string, number][];
  close: () => void;
}> {
  const scopes = new Map<string, number>();
  const names = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      try {
        const parsed = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: { name?: string }[] }[] }[] };
        for (const rs of parsed.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            scopes.set(ss.scope?.name ?? '?', (scopes.get(ss.scope?.name ?? '?') ?? 0) + (ss.spans?.length ?? 0));
            for (const span of ss.spans ?? []) names.set(span.name ?? '?', (names.get(span.name ?? '?') ?? 0) + 1);
          }
        }
      } catch {
        scopes.set('unparsed', (scopes.get('unparsed') ?? 0) + 1);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => [...scopes.values()].reduce((a, b) => a + b, 0),
    byScope: () => [...scopes.entries()].sort((a, b) => b[1] - a[1]),
    byName: () => [...names.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8),
    close: () => server.close(),
  };
}

async function benchTurns(
  workers: number,
  traces: string,
): Promise<{ turnsPerSec: number; p50: number; p99: number; spans: number; byScope: [string, number][]; byName: [string, number][] }> {
  const sink = traces === 'otlp' ? await otlpSink() : undefined;
  const otel: Record<string, string> = sink ? { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {};
  const stack = await HubStack.start({
    label: `bench${workers}`,
    workers,
    ingressEnv: otel,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '0', HUB_WORKER_CONCURRENCY: '16', ...otel },
  });
  try {
    const { apiKey } = await stack.createTenant('bench');
    await oneSession(stack, apiKey, 'warmup', []);
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, (_, i) => oneSession(stack, apiKey, `s${i}`, latencies)));
    const secs = (performance.now() - t0) / 1000;
    return {
      turnsPerSec: (SESSIONS * TURNS) / secs,
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      spans: sink?.spans() ?? 0,
      byScope: sink?.byScope() ?? [],
      byName: sink?.byName() ?? [],
    };
  } finally {
    await stack.stop();
    sink?.close();
  }
}

async function benchNoopJobs(n: number): Promise<number> {
  const q = uniqueQueuePrefix('noop');
  const connection = { url: TEST_REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('noop', { connection, prefix: q.prefix });
  const events = new QueueEvents('noop', { connection, prefix: q.prefix });
  await events.waitUntilReady();
  let done = 0;
  const finished = new Promise<void>((r) => events.on('completed', () => ++done === n && r()));
  const worker = new Worker('noop', async () => null, { connection, prefix: q.prefix, concurrency: 16 });
  await worker.waitUntilReady();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 500) await queue.addBulk(Array.from({ length: Math.min(500, n - i) }, (_, j) => ({ name: 'noop', data: { i: i + j } })));
  await finished;
  const rate = n / ((performance.now() - t0) / 1000);
  await worker.close();
  await events.close();
  await queue.close();
  await q.cleanup();
  return rate;
}

async function main(): Promise<void> {
  process.stderr.write(`bench: ${SESSIONS} sessions x ${TURNS} turns ("calculate N + 1": one model call, one tool call, one more model call)\n`);
  for (const w of values.workers.split(',').map(Number)) {
    for (const traces of values.traces.split(',')) {
      const r = await benchTurns(w, traces);
      process.stdout.write(
        `workers=${w}  traces=${traces.padEnd(4)}  turns/s=${r.turnsPerSec.toFixed(1)}  submit->first delta p50=${r.p50.toFixed(1)} ms  p99=${r.p99.toFixed(1)} ms${traces === 'otlp' ? `  spans received=${r.spans}` : ''}\n`,
      );
      const turns = SESSIONS * TURNS + 1;
      if (traces === 'otlp') {
        process.stdout.write(`  spans per turn by instrumentation: ${r.byScope.map(([scope, n]) => `${scope}=${(n / turns).toFixed(1)}`).join('  ')}\n`);
        process.stdout.write(`  most frequent spans per turn: ${r.byName.map(([name, n]) => `${name}=${(n / turns).toFixed(1)}`).join('  ')}\n`);
      }
    }
  }
  const noop = await benchNoopJobs(Number(values.jobs));
  process.stdout.write(`raw BullMQ no-op jobs/s=${noop.toFixed(0)} (one worker process, concurrency 16)\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
    process.exit(1);
  },
);
