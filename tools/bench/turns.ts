/**
 * End-to-end turn throughput and latency, with the offline model at zero delay.
 *
 *   node -r @swc-node/register tools/bench/turns.ts [--sessions 20] [--turns 10] [--workers 1,2]
 *
 * Starts a real stack per worker count (fresh database, unique queue prefix, one ingress and N
 * worker processes), drives it over the Harness transport WebSocket, and prints: turns per
 * second; p50/p99 from submit to the first delta on the socket; and raw BullMQ no-op jobs per
 * second in the same run, so the hub's cost per turn can be read against the queue's own.
 */
import { parseArgs } from 'node:util';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { HubStack, TEST_REDIS_URL, TransportTestClient, uniqueQueuePrefix } from '@hub/testing';

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '20' }, turns: { type: 'string', default: '10' }, workers: { type: 'string', default: '1,2' }, jobs: { type: 'string', default: '5000' } },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function oneSession(stack: HubStack, apiKey: string, id: string, latencies: number[]): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null);
  for (let t = 0; t < TURNS; t++) {
    const framesBefore = c.frames.length;
    const done = (x: TransportTestClient) => x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= (t + 1) * 2 && x.lastAssistant()?.status === 'complete';
    const t0 = performance.now();
    c.send([{ type: 'submit', prompt: `calculate ${t} + 1` }]);
    await c.waitFor('first delta', (x) => x.frames.length > framesBefore, 60_000);
    latencies.push(performance.now() - t0);
    await c.waitFor('turn end', done, 60_000);
  }
  await c.close();
}

async function benchTurns(workers: number): Promise<{ turnsPerSec: number; p50: number; p99: number }> {
  const stack = await HubStack.start({ label: `bench${workers}`, workers, workerEnv: { HUB_OFFLINE_DELAY_MS: '0', HUB_WORKER_CONCURRENCY: '16' } });
  try {
    const { apiKey } = await stack.createTenant('bench');
    await oneSession(stack, apiKey, 'warmup', []);
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, (_, i) => oneSession(stack, apiKey, `s${i}`, latencies)));
    const secs = (performance.now() - t0) / 1000;
    return { turnsPerSec: (SESSIONS * TURNS) / secs, p50: pct(latencies, 50), p99: pct(latencies, 99) };
  } finally {
    await stack.stop();
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
    const r = await benchTurns(w);
    process.stdout.write(`workers=${w}  turns/s=${r.turnsPerSec.toFixed(1)}  submit->first delta p50=${r.p50.toFixed(1)} ms  p99=${r.p99.toFixed(1)} ms\n`);
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
