/**
 * The peer benchmark's streaming workload (issue 31, density): the same streaming run against
 * LangGraph's JS Agent Server, DBOS Transact and the hub, one side at a time on this machine,
 * with hundreds of runs in flight, side by side.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node -r ./node_modules/@swc-node/register/index.js \
 *     tools/bench/peers/streaming.ts [--levels 300,1000] [--runs-per-level 2] [--alone 5] [--words 100] \
 *     [--sides langgraph,dbos,hub] [--langgraph-jobs 10] [--dbos-pool 10]
 *
 * A run is: a fresh thread / workflow / session, the prompt `long answer <words>`, answered by an
 * offline model that streams `word1 … word<words>` one word at a time, 15 ms apart (the hub's
 * HUB_OFFLINE_DELAY_MS default), each word delivered to the client as it is produced, read to
 * the end of the run. Per side: `--alone` runs one at a time (a run alone), then at each level
 * `level × --runs-per-level` runs with `level` in flight at all times (a closed loop). Printed per
 * side and level: run time p50 (and as × a run alone) and p99, runs/s, failed runs, the longest
 * silence inside a stream (p99 over runs of each run's widest gap between two stream messages
 * received, from the first after the request to the last) and how busy the machine's CPUs were.
 * See README.md next to this file. Progress goes to stderr, the table to stdout.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { machineBusyMs } from '../lib/cpu';
import { PHASES, streamingLoad } from '../lib/streaming-load';
import { peerStreamingLoad, readSse, type PeerStreamingRun, type StreamingMeasures } from './peer-streaming-load';
import { fetchOk, log, startDbosServer, startHub, startLangGraphServer } from './servers';

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '300,1000' },
    'runs-per-level': { type: 'string', default: '2' },
    alone: { type: 'string', default: '5' },
    words: { type: 'string', default: '100' },
    sides: { type: 'string', default: 'langgraph,dbos,hub' },
    'langgraph-jobs': { type: 'string', default: '10' },
    'dbos-pool': { type: 'string' },
  },
});
const LEVELS = values.levels.split(',').map(Number);
const PER_LEVEL = Number(values['runs-per-level']);
const ALONE = Number(values.alone);
const WORDS = Number(values.words);
const SIDES = values.sides.split(',').map((s) => s.trim());
/** The offline model's pause between two words, on every side: the hub's HUB_OFFLINE_DELAY_MS default. */
const DELAY_MS = 15;
const PROMPT = `long answer ${WORDS}`;
/** What every side's model answers to PROMPT (the hub's offline script). */
const ANSWER = Array.from({ length: WORDS }, (_, i) => `word${i + 1}`).join(' ');

interface Load {
  inFlight: number;
  runs: number;
  progress: (ended: number, failed: number) => void;
}

interface StreamingSide {
  name: string;
  start(): Promise<{ load(o: Load): Promise<LevelMeasures>; stop(): Promise<void> }>;
}

const json = { 'content-type': 'application/json' };

const langgraph: StreamingSide = {
  name: 'LangGraph',
  async start() {
    const server = await startLangGraphServer({ OFFLINE_DELAY_MS: String(DELAY_MS), LANGGRAPH_N_JOBS: values['langgraph-jobs'] });
    // A fresh thread, then the run on it streamed in mode `messages`: each word arrives as a
    // `messages/partial` event carrying the AI message so far.
    const run: PeerStreamingRun = async (_id, signal) => {
      const t0 = performance.now();
      const thread = (await (await fetchOk(`${server.url}/threads`, { method: 'POST', headers: json, body: '{}', signal })).json()) as { thread_id: string };
      const res = await fetchOk(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ assistant_id: 'streamer', input: { messages: [{ role: 'human', content: PROMPT }] }, stream_mode: 'messages' }),
        signal,
      });
      let partials = 0;
      let text = '';
      let error: string | undefined;
      let firstWordMs = NaN;
      const silenceMs = await readSse(res, (e) => {
        if (e.event === 'error') error ??= e.data;
        if (e.event !== 'messages/partial') return;
        if (partials++ === 0) firstWordMs = performance.now() - t0;
        text = (JSON.parse(e.data) as { content: string }[])[0]?.content ?? '';
      });
      const ms = performance.now() - t0;
      if (error) throw new Error(`error event: ${error.slice(0, 300)}`);
      if (partials !== WORDS || text !== ANSWER)
        throw new Error(`the stream carried ${partials} partial messages ending "${text.slice(-40)}", not ${WORDS} ending "${ANSWER.slice(-40)}"`);
      return { ms, silenceMs, firstWordMs };
    };
    return { load: (o) => peerStreamingLoad(run, o), stop: () => server.stop() };
  },
};

const dbos: StreamingSide = {
  name: 'DBOS',
  async start() {
    const { server, stop } = await startDbosServer({
      OFFLINE_DELAY_MS: String(DELAY_MS),
      ...(values['dbos-pool'] ? { DBOS_POOL_SIZE: values['dbos-pool'] } : {}),
    });
    // One request: the server starts the workflow with this id and relays its stream (one
    // event a word), then an `end` event with the workflow's result.
    const run: PeerStreamingRun = async (id, signal) => {
      const t0 = performance.now();
      const res = await fetchOk(`${server.url}/streams`, { method: 'POST', headers: json, body: JSON.stringify({ id, prompt: PROMPT }), signal });
      const words: string[] = [];
      let end: { status?: string } | undefined;
      let error: string | undefined;
      let firstWordMs = NaN;
      const silenceMs = await readSse(res, (e) => {
        if (e.event === 'error') error ??= e.data;
        else if (e.event === 'end') end = JSON.parse(e.data) as { status?: string };
        else if (words.push(JSON.parse(e.data) as string) === 1) firstWordMs = performance.now() - t0;
      });
      const ms = performance.now() - t0;
      if (error) throw new Error(`error event: ${error.slice(0, 300)}`);
      if (end?.status !== 'complete') throw new Error(`workflow ${id} ended with ${JSON.stringify(end)}`);
      if (words.length !== WORDS || words.join('') !== ANSWER)
        throw new Error(`the stream carried ${words.length} words ending "${words.join('').slice(-40)}", not ${WORDS}`);
      return { ms, silenceMs, firstWordMs };
    };
    return { load: (o) => peerStreamingLoad(run, o), stop };
  },
};

const hub: StreamingSide = {
  name: 'hub',
  async start() {
    // At its defaults but the worker's model pace, which HubStack sets to 0 unless told.
    const { stack, apiKey, stop } = await startHub('peers_streaming', { HUB_OFFLINE_DELAY_MS: String(DELAY_MS) });
    return {
      async load(o) {
        const r = await streamingLoad([{ url: stack.url, apiKey }], { inFlight: o.inFlight, turns: o.runs, prompt: PROMPT, progress: o.progress });
        // Its phases' p50s up to the first text, summed: about the p50 of the wait for the first word.
        const firstWordP50Ms = r.phases.open + r.phases.snapshot + r.phases.accepted + r.phases.firstText;
        return { ...r, firstWordP50Ms, phasesLine: PHASES.map((p) => `${p} ${r.phases[p].toFixed(0)}`).join(', ') };
      },
      stop,
    };
  },
};

/** What a level reports: the shared measures, the wait for the first word, and the hub's phases. */
type LevelMeasures = StreamingMeasures & { firstWordP50Ms: number; phasesLine?: string };

interface Level {
  r: LevelMeasures;
  /** The machine's CPUs busy over the level, in % of all cores. */
  busyPct: number;
}

interface SideResult {
  name: string;
  alone?: LevelMeasures;
  levels: Level[];
  error?: string;
}

async function measure(side: StreamingSide): Promise<SideResult> {
  const out: SideResult = { name: side.name, levels: [] };
  log(`${side.name}: starting (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  let running: Awaited<ReturnType<StreamingSide['start']>>;
  try {
    running = await side.start();
  } catch (e) {
    out.error = `did not start: ${(e as Error).message.split('\n')[0]}`;
    log(`${side.name}: ${out.error}`);
    return out;
  }
  try {
    log(`${side.name}: ${ALONE} runs alone`);
    out.alone = await running.load({ inFlight: 1, runs: ALONE, progress: () => undefined });
    if (out.alone.failed === ALONE) throw new Error(`every run alone failed: ${out.alone.failures[0]}`);
    for (const level of LEVELS) {
      const runs = level * PER_LEVEL;
      log(`${side.name}: ${runs} runs, ${level} in flight`);
      const busy0 = machineBusyMs();
      let lastReport = 0;
      const r = await running.load({
        inFlight: level,
        runs,
        progress: (ended, failed) => {
          if (performance.now() - lastReport < 5_000) return;
          lastReport = performance.now();
          log(`  ${side.name} @${level}: ${ended}/${runs} ended, ${failed} failed`);
        },
      });
      out.levels.push({ r, busyPct: (100 * (machineBusyMs() - busy0)) / (r.wallMs * availableParallelism()) });
      log(
        `${side.name} @${level}: p50 ${(r.p50Ms / 1000).toFixed(2)} s, p99 ${(r.p99Ms / 1000).toFixed(2)} s, ${r.turnsPerSec.toFixed(1)} runs/s, ${r.failed} failed, silence p99 ${r.silenceP99Ms.toFixed(0)} ms, ${(r.wallMs / 1000).toFixed(0)} s`,
      );
    }
  } catch (e) {
    out.error = `failed: ${(e as Error).message.split('\n')[0]}`;
    log(`${side.name}: ${out.error}`);
  } finally {
    log(`${side.name}: stopping`);
    await running.stop().catch((e: unknown) => log(`${side.name}: stop failed: ${(e as Error).message.slice(0, 2000)}`));
  }
  return out;
}

function table(results: SideResult[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const lines = [
    `streaming: "${PROMPT}", a word every ${DELAY_MS} ms, ${PER_LEVEL}× the level runs per level, a fresh thread / workflow / session per run;`,
    `LangGraph with ${values['langgraph-jobs']} jobs${values['langgraph-jobs'] === '10' ? ' (its default)' : ''}, DBOS with a system database pool of ${values['dbos-pool'] ?? '10 (its default)'}, the hub at its defaults`,
    '',
    '| side | in flight | runs | a run alone (p50) | p50 (× alone) | p99 | runs/s | failed | longest silence p99 (max) | first word p50 | machine CPU busy |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { name, alone, levels, error } of results) {
    if (error && levels.length === 0) lines.push(`| ${name} | ${error} |`);
    for (const { r, busyPct } of levels) {
      const a = alone?.p50Ms ?? NaN;
      lines.push(
        `| ${name} | ${r.inFlight} | ${r.turns} | ${s(a)} | ${s(r.p50Ms)} (${(r.p50Ms / a).toFixed(2)}×) | ${s(r.p99Ms)} | ${r.turnsPerSec.toFixed(1)} | ${r.failed} | ${r.silenceP99Ms.toFixed(0)} (${r.silenceMaxMs.toFixed(0)}) ms | ${s(r.firstWordP50Ms)} | ${busyPct.toFixed(0)} % |`,
      );
    }
  }
  const phased = results.flatMap(({ name, alone, levels }) => [
    ...(alone?.phasesLine ? [`  - ${name} alone: ${alone.phasesLine}`] : []),
    ...levels.filter((l) => l.r.phasesLine).map((l) => `  - ${name} at ${l.r.inFlight}: ${l.r.phasesLine}`),
  ]);
  if (phased.length)
    lines.push('', "the hub's turn phases, p50 in ms, each from the end of the one before (first word p50 is their sum up to firstText):", ...phased);
  for (const { name, levels, error } of results) {
    if (error && levels.length > 0) lines.push('', `${name}: ${error}`);
    for (const { r } of levels) if (r.failures.length) lines.push('', `${name}, failures at ${r.inFlight} in flight:`, ...r.failures.map((f) => `  - ${f}`));
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const known: Record<string, StreamingSide> = { langgraph, dbos, hub };
  const unknown = SIDES.filter((s) => !known[s]);
  if (unknown.length) throw new Error(`unknown side(s) ${unknown.join(', ')}; known: ${Object.keys(known).join(', ')}`);
  log(`streaming: levels ${LEVELS.join(', ')} (${PER_LEVEL}× the level runs each), ${ALONE} runs alone, sides: ${SIDES.join(', ')}; prompt "${PROMPT}"`);
  const t0 = performance.now();
  const results: SideResult[] = [];
  for (const s of SIDES) results.push(await measure(known[s]));
  process.stdout.write(`${table(results)}\n\nwhole run: ${((performance.now() - t0) / 60_000).toFixed(1)} min\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`peers streaming bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
