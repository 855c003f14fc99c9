/**
 * Noisy neighbour: how long tenant B's single turns take while tenant A has a backlog, in one run
 * per scheduling mode: arrival order; fair order alone (HUB_WORKER_BURST_SLOTS=0, as before slots
 * were shared); fair order with slots shared between tenants (the defaults: a tenant below its
 * share borrows a slot instead of waiting for one of A's turns to end; libs/queue/src/slot-share.ts).
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node \
 *     -r ./node_modules/@swc-node/register/index.js tools/bench/noisy-neighbour.ts [--backlog 300] [--b-turns 5]
 *
 * Per mode, a real stack (one ingress, one worker, HUB_OFFLINE_DELAY_MS=20 so a turn holds a
 * worker slot for about a second, as a model call does): B alone runs --b-turns turns at once
 * (each a fresh session, submit to the end of the turn over the transport socket); then
 * A submits --backlog turns at once (one session each) and, 1.5 s later, B runs the same turns
 * again. Prints B's p50 alone and under A's backlog, and their ratio. NOISY_DEBUG=1 also prints, per
 * turn of B, the ack (submit decided), the first text (a worker slot reached) and the end.
 */
import { parseArgs } from 'node:util';
import { HubStack, TransportTestClient } from '@hub/testing';

const { values } = parseArgs({ options: { backlog: { type: 'string', default: '300' }, 'b-turns': { type: 'string', default: '5' } } });
const BACKLOG = Number(values.backlog);
const B_TURNS = Number(values['b-turns']);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function open(stack: HubStack, key: string, session: string): Promise<TransportTestClient> {
  const c = await TransportTestClient.connect(stack.url, key, { session });
  await c.waitFor('snapshot', (x) => x.state !== null, 60_000);
  return c;
}

const finished = (x: TransportTestClient) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete';

/** One turn of a fresh session: ms from submit to the end of the turn. */
async function oneTurn(stack: HubStack, key: string, session: string): Promise<number> {
  const c = await open(stack, key, session);
  try {
    const t0 = performance.now();
    const before = c.frames.length;
    c.send([{ type: 'submit', prompt: 'hello there' }]);
    await c.waitFor('first frame', (x) => x.frames.length > before, 300_000);
    const t1 = performance.now();
    await c.waitFor('first text', (x) => (x.lastAssistant()?.content.length ?? 0) > 0, 300_000);
    const t2 = performance.now();
    await c.waitFor('turn end', finished, 300_000);
    if (process.env.NOISY_DEBUG)
      process.stderr.write(`  ${session}: ack ${(t1 - t0).toFixed(0)} first text ${(t2 - t0).toFixed(0)} end ${(performance.now() - t0).toFixed(0)}\n`);
    return performance.now() - t0;
  } finally {
    await c.close();
  }
}

/** B's turns, started together (as a client with a few sessions would). */
function bTurns(stack: HubStack, key: string, label: string): Promise<number[]> {
  return Promise.all(Array.from({ length: B_TURNS }, (_, i) => oneTurn(stack, key, `${label}-${i}`)));
}

/** A scheduling mode: its name in the table and the environment that makes it (nothing else differs). */
const MODES = [
  { name: 'arrival order', label: 'noisyfifo', env: { HUB_FAIR_SCHEDULING: 'false', HUB_WORKER_BURST_SLOTS: '0' } },
  { name: 'fair order only', label: 'noisyfair', env: { HUB_FAIR_SCHEDULING: 'true', HUB_WORKER_BURST_SLOTS: '0' } },
  { name: 'fair + shared slots', label: 'noisyshare', env: {} },
] as const;

async function mode(m: (typeof MODES)[number]): Promise<{ alone: number; noisy: number; aDone: number }> {
  const env: Record<string, string> = { ...m.env };
  const ingressEnv: Record<string, string> = env['HUB_FAIR_SCHEDULING'] ? { HUB_FAIR_SCHEDULING: env['HUB_FAIR_SCHEDULING'] } : {};
  const stack = await HubStack.start({ label: m.label, ingressEnv, workerEnv: { ...env, HUB_OFFLINE_DELAY_MS: '20' } });
  try {
    const a = await stack.createTenant('a');
    const b = await stack.createTenant('b');
    await oneTurn(stack, b.apiKey, 'warmup');
    const alone = await bTurns(stack, b.apiKey, 'alone');
    process.stderr.write(`noisy: ${m.name}: B alone ${alone.map((x) => x.toFixed(0)).join(', ')} ms\n`);
    const clients: TransportTestClient[] = [];
    for (let i = 0; i < BACKLOG; i += 50)
      clients.push(...(await Promise.all(Array.from({ length: Math.min(50, BACKLOG - i) }, (_, j) => open(stack, a.apiKey, `a-${i + j}`)))));
    for (const c of clients) c.send([{ type: 'submit', prompt: 'hello there' }]);
    process.stderr.write(`noisy: ${m.name}: A submitted ${BACKLOG} turns\n`);
    await sleep(1500);
    const noisy = await bTurns(stack, b.apiKey, 'noisy');
    process.stderr.write(`noisy: ${m.name}: B under A's backlog ${noisy.map((x) => x.toFixed(0)).join(', ')} ms\n`);
    const aDone = clients.filter(finished).length;
    // The stack replays every session against the read models when it stops: only once A's turns are over.
    await Promise.all(clients.map((c) => c.waitFor('turn end', finished, 600_000)));
    await Promise.all(clients.map((c) => c.close()));
    return { alone: median(alone), noisy: median(noisy), aDone };
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const only = process.env.NOISY_MODES?.split(',');
  for (const m of MODES.filter((x) => !only || only.includes(x.label))) {
    const r = await mode(m);
    rows.push(
      `${m.name.padEnd(20)} ${r.alone.toFixed(0).padStart(8)} ms ${r.noisy.toFixed(0).padStart(10)} ms ${(r.noisy / r.alone).toFixed(2).padStart(7)}x   ${r.aDone}/${BACKLOG}`,
    );
  }
  console.log(`scheduling           B alone p50  B noisy p50   ratio   A's turns done by then`);
  for (const row of rows) console.log(row);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
