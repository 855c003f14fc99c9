/**
 * Does a turn cost more as its session grows? One session, many turns of long answers.
 *
 *   node -r @swc-node/register tools/bench/growth.ts [--turns 60] [--words 300] [--delay 0]
 *        [--prefill 100000] [--compare 15]
 *
 * Starts a real stack (fresh database, one ingress, one worker, offline model at `--delay` ms per
 * chunk), drives one session over the Harness transport WebSocket with `long answer <words>`, and
 * prints: turn latency (submit to the answer complete on the socket) of the first and the last
 * turns, events and `TextDelta` events per turn, `TextDelta` per flush window, and the session's
 * event count.
 *
 * `--prefill N` then grows a second session to N events fast: recorded turns of the first session
 * are appended straight to the log in batches, their text split back into one delta per word (the
 * log a session got before text was coalesced). Then `--compare` turns alternate between that
 * session and a fresh one, and the latencies are compared (same prompts, same process, same load).
 */
import { parseArgs } from 'node:util';
import type { HubEvent, Recorded } from '@hub/domain';
import { EventStore, createPool } from '@hub/event-store';
import { HubStack, TransportTestClient } from '@hub/testing';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '60' },
    words: { type: 'string', default: '300' },
    delay: { type: 'string', default: '0' },
    prefill: { type: 'string', default: '0' },
    compare: { type: 'string', default: '15' },
    window: { type: 'string', default: '50' },
  },
});
const TURNS = Number(values.turns);
const WORDS = Number(values.words);
const PREFILL = Number(values.prefill);
const COMPARE = Number(values.compare);
const WINDOW_MS = Number(values.window);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (n: number) => n.toFixed(1);

/** Wall-clock submit and done time of each prompt, to split a turn's latency by the log's timestamps. */
const wall = new Map<string, { submit: number; done: number }>();

/** Submits one turn and waits for its answer to be complete on the socket; returns ms. */
async function turn(c: Client, prompt: string): Promise<number> {
  const assistants = () => c.state?.messages.filter((m) => m.role === 'assistant').length ?? 0;
  const before = assistants();
  const submit = Date.now();
  const t0 = performance.now();
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('turn end', (x) => x.state?.status === 'idle' && assistants() > before && x.lastAssistant()?.status === 'complete', 120_000);
  wall.set(`${c.sessionId}|${prompt}`, { submit, done: Date.now() });
  return performance.now() - t0;
}

/**
 * Where a session's measured turns spent their time, by the log's commit timestamps (medians, ms):
 * submit to TurnRequested (ingress, queue, command decision), to MessageStarted (runner job start
 * and its read), to TurnCompleted (the model call and its appends), to the answer on the socket.
 */
function breakdown(events: Recorded<HubEvent>[], sessionId: string, prompts: string[]): string {
  const parts: number[][] = [[], [], [], []];
  for (const prompt of prompts) {
    const w = wall.get(`${sessionId}|${prompt}`);
    const req = events.find((e) => e.type === 'TurnRequested' && e.data.prompt === prompt);
    if (!w || !req) continue;
    const at = (type: string) => Date.parse(events.find((e) => e.type === type && turnOf(e) === turnOf(req))?.createdAt ?? '');
    const marks = [w.submit, Date.parse(req.createdAt), at('MessageStarted'), at('TurnCompleted'), w.done];
    for (let i = 0; i < 4; i++) parts[i].push(marks[i + 1] - marks[i]);
  }
  return `submit->requested ${fmt(median(parts[0]))}, ->runner started ${fmt(median(parts[1]))}, ->completed ${fmt(median(parts[2]))}, ->on socket ${fmt(median(parts[3]))}`;
}

type Client = TransportTestClient & { sessionId: string };

async function session(stack: HubStack, apiKey: string, id: string): Promise<Client> {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null, 120_000);
  return Object.assign(c, { sessionId: id });
}

const turnOf = (e: Recorded<HubEvent>): string | null => ('turnId' in e.data ? (e.data as { turnId: string }).turnId : null);

/** Per turn: its events, its TextDeltas, and its TextDeltas per flush window of its model call. */
function perTurn(events: Recorded<HubEvent>[]) {
  const byTurn = new Map<string, Recorded<HubEvent>[]>();
  for (const e of events) {
    const t = turnOf(e);
    if (t) byTurn.set(t, [...(byTurn.get(t) ?? []), e]);
  }
  return [...byTurn.values()].map((es) => {
    const deltas = es.filter((e) => e.type === 'TextDelta');
    const start = es.find((e) => e.type === 'ModelCallStarted');
    const end = es.find((e) => e.type === 'ModelCallCompleted');
    const callMs = start && end ? Date.parse(end.createdAt) - Date.parse(start.createdAt) : 0;
    return { events: es.length, deltas: deltas.length, windows: Math.max(1, Math.ceil(callMs / WINDOW_MS)) };
  });
}

/** Appends copies of one recorded turn until the session holds `target` events (one delta per word, as before coalescing). */
async function prefill(stack: HubStack, tenantId: string, sessionId: string, sample: Recorded<HubEvent>[], target: number): Promise<number> {
  const pool = createPool(stack.databaseUrl, { max: 2 });
  const store = new EventStore(pool);
  const streamId = `session-${sessionId}`;
  let version = await store.streamVersion(tenantId, streamId);
  const perTurn = copyTurn(sample, 'x').length;
  for (let i = 0; version < target; i++) {
    const batch: ReturnType<typeof copyTurn> = [];
    const turns = Math.min(20, Math.ceil((target - version) / perTurn));
    for (let k = 0; k < turns; k++) batch.push(...copyTurn(sample, `prefill-${i}-${k}`));
    version = (await store.append(tenantId, streamId, batch, { expectedVersion: version })).nextExpectedVersion;
  }
  await pool.end();
  return version;
}

function copyTurn(sample: Recorded<HubEvent>[], turnId: string) {
  const from = turnOf(sample[0]) ?? '';
  const swap = (v: unknown): unknown => (typeof v === 'string' && v.startsWith(from) ? turnId + v.slice(from.length) : v);
  const out: { type: string; data: unknown; metadata: Recorded<HubEvent>['metadata'] }[] = [];
  for (const e of sample) {
    const data = Object.fromEntries(Object.entries(e.data).map(([k, v]) => [k, swap(v)]));
    if (e.type !== 'TextDelta') {
      out.push({ type: e.type, data, metadata: e.metadata });
      continue;
    }
    const d = data as { offset: number; text: string };
    let offset = d.offset;
    for (const word of d.text.match(/\s*\S+\s*/g) ?? [d.text]) {
      out.push({ type: 'TextDelta', data: { ...d, offset, text: word }, metadata: e.metadata });
      offset += word.length;
    }
  }
  return out;
}

async function main(): Promise<void> {
  const stack = await HubStack.start({
    label: 'growth',
    workers: 1,
    workerEnv: { HUB_OFFLINE_DELAY_MS: String(values.delay), HUB_TEXT_FLUSH_MS: String(WINDOW_MS) },
  });
  try {
    const { apiKey, tenantId } = await stack.createTenant('growth');
    const c = await session(stack, apiKey, 'growth');
    const latencies: number[] = [];
    for (let t = 0; t < TURNS; t++) latencies.push(await turn(c, `long answer ${WORDS} (turn ${t})`));
    await c.close();
    const events = await stack.events(tenantId, 'growth');
    const turns = perTurn(events);
    const k = Math.min(5, Math.floor(TURNS / 2));
    process.stdout.write(`session: ${TURNS} turns of "long answer ${WORDS}", offline delay ${values.delay} ms, flush window ${WINDOW_MS} ms\n`);
    process.stdout.write(`  turn latency: first ${k} mean ${fmt(mean(latencies.slice(0, k)))} ms, last ${k} mean ${fmt(mean(latencies.slice(-k)))} ms\n`);
    process.stdout.write(
      `  events per turn: ${turns[0]?.events} (first) .. ${turns.at(-1)?.events} (last); TextDelta per turn: max ${Math.max(...turns.map((t) => t.deltas))}, mean ${fmt(mean(turns.map((t) => t.deltas)))}\n`,
    );
    process.stdout.write(`  TextDelta per flush window of the model call: max ${Math.max(...turns.map((t) => t.deltas / t.windows)).toFixed(2)}\n`);
    process.stdout.write(`  session events: ${events.length}\n`);
    if (PREFILL > 0) await compare(stack, tenantId, apiKey, events);
  } finally {
    await stack.stop();
  }
}

async function compare(stack: HubStack, tenantId: string, apiKey: string, recorded: Recorded<HubEvent>[]): Promise<void> {
  const first = turnOf(recorded.find((e) => e.type === 'TurnRequested') as Recorded<HubEvent>);
  const sample = recorded.filter((e) => turnOf(e) === first);
  // The big session is opened by a real turn, then grown by recorded ones.
  const opener = await session(stack, apiKey, 'big');
  await turn(opener, `long answer ${WORDS}`);
  await opener.close();
  const t0 = performance.now();
  const size = await prefill(stack, tenantId, 'big', sample, PREFILL);
  process.stdout.write(`prefill: session "big" has ${size} events (${fmt((performance.now() - t0) / 1000)} s)\n`);
  const big = await session(stack, apiKey, 'big');
  const fresh = await session(stack, apiKey, 'fresh');
  // Warm-up: the first turn of the grown session rebuilds its snapshot (once).
  const warm = { big: await turn(big, `long answer ${WORDS} (warm-up)`), fresh: await turn(fresh, `long answer ${WORDS} (warm-up)`) };
  process.stdout.write(`  warm-up turn: big ${fmt(warm.big)} ms, fresh ${fmt(warm.fresh)} ms\n`);
  const lat = { big: [] as number[], fresh: [] as number[] };
  for (let i = 0; i < COMPARE; i++) {
    lat.fresh.push(await turn(fresh, `long answer ${WORDS} (same turn ${i})`));
    lat.big.push(await turn(big, `long answer ${WORDS} (same turn ${i})`));
  }
  await big.close();
  await fresh.close();
  const prompts = Array.from({ length: COMPARE }, (_, i) => `long answer ${WORDS} (same turn ${i})`);
  process.stdout.write(`  fresh: ${breakdown(await stack.events(tenantId, 'fresh'), 'fresh', prompts)}\n`);
  process.stdout.write(`  big:   ${breakdown(await stack.events(tenantId, 'big'), 'big', prompts)}\n`);
  const ratio = median(lat.big) / median(lat.fresh);
  process.stdout.write(
    `  same turn, ${COMPARE} times each, alternating: fresh session median ${fmt(median(lat.fresh))} ms (mean ${fmt(mean(lat.fresh))}), ${size}-event session median ${fmt(median(lat.big))} ms (mean ${fmt(mean(lat.big))}); ratio ${ratio.toFixed(2)}x\n`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
    process.exit(1);
  },
);
