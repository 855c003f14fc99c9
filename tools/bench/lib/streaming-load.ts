/**
 * The streaming workload (issue 31), written once for every bench that drives it against the
 * hub: N sessions in flight at all times (a closed loop), each a fresh session of one turn whose
 * answer streams at the model's pace, read over the Harness transport WebSocket to its end.
 *
 * Per turn it measures, in the client: the turn time (from the socket's open request to the
 * frame that ends the turn, what a user waits) and the longest silence inside the stream (the
 * widest gap between two frames from the turn's first frame after the submit to its last). A turn
 * fails on an error frame, a failed or cancelled end, a socket closed early, or no end within
 * `timeoutMs`.
 */
import { TransportTestClient } from '@hub/testing';
import { pct } from './percentile';

export interface StreamingOptions {
  /** Sessions in flight at all times. */
  inFlight: number;
  /** Turns in all (each in a fresh session). */
  turns: number;
  /** The prompt of every turn (default `long answer 100`). */
  prompt?: string;
  /** A turn with no end after this long fails (default 180 s). */
  timeoutMs?: number;
  /** Called every second with the turns ended so far (progress on stderr). */
  progress?: (ended: number, failed: number) => void;
}

export interface StreamingResult {
  inFlight: number;
  turns: number;
  failed: number;
  wallMs: number;
  turnsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** p99 over turns of each turn's longest silence. */
  silenceP99Ms: number;
  silenceMaxMs: number;
  /** A few failures' reasons, for the table's footnote. */
  failures: string[];
  /** p50 of each phase of a turn, in ms: where its time went. */
  phases: Record<Phase, number>;
}

/**
 * A turn's phases, each from the end of the one before: the socket open, the snapshot, the first
 * frame after the submit (the turn accepted), its first text, its last text, its end.
 */
export const PHASES = ['open', 'snapshot', 'accepted', 'firstText', 'lastText', 'end'] as const;
export type Phase = (typeof PHASES)[number];

interface TurnSample {
  ms: number;
  silenceMs: number;
  phases: Record<Phase, number>;
}

/** Runs the workload against a hub (each ingress URL with a tenant's key; turns go round-robin) and reports it. */
export async function streamingLoad(targets: readonly { url: string; apiKey: string }[], o: StreamingOptions): Promise<StreamingResult> {
  const prompt = o.prompt ?? 'long answer 100';
  const timeoutMs = o.timeoutMs ?? 180_000;
  const loop = await closedLoop(o.inFlight, o.turns, (n, tag) => oneTurn(targets[n % targets.length], `stream-${tag}-${n}`, prompt, timeoutMs), o.progress);
  return {
    ...measuresOf(loop, o.inFlight, o.turns),
    phases: Object.fromEntries(
      PHASES.map((p) => [
        p,
        pct(
          loop.samples.map((x) => x.phases[p]),
          50,
        ),
      ]),
    ) as Record<Phase, number>,
  };
}

/** What a closed loop of runs gave: each run's sample, and the failures. */
export interface LoopOutcome<S> {
  samples: S[];
  failed: number;
  /** A few failures' reasons. */
  failures: string[];
  wallMs: number;
}

/**
 * `runs` runs with `inFlight` of them in flight at all times (a closed loop: a run starts when
 * one ends); `run` gets the run's number and a tag unique to this loop (for fresh ids). The one
 * loop every streaming bench drives, the hub's and the peers' (peers/peer-streaming-load.ts).
 */
export async function closedLoop<S>(
  inFlight: number,
  runs: number,
  run: (n: number, tag: string) => Promise<S>,
  progress?: (ended: number, failed: number) => void,
): Promise<LoopOutcome<S>> {
  const samples: S[] = [];
  const failures: string[] = [];
  let started = 0;
  let failed = 0;
  const tag = Math.random().toString(36).slice(2, 8);
  const t0 = performance.now();
  const ticker = setInterval(() => progress?.(samples.length + failed, failed), 1000);
  const lane = async (): Promise<void> => {
    while (started < runs) {
      const n = started++;
      try {
        samples.push(await run(n, tag));
      } catch (e) {
        failed++;
        if (failures.length < 5) failures.push((e as Error).message.slice(0, 300));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(inFlight, runs) }, lane));
  } finally {
    clearInterval(ticker);
  }
  return { samples, failed, failures, wallMs: performance.now() - t0 };
}

/** The measures every streaming bench reports of a loop's runs. */
export function measuresOf(loop: LoopOutcome<{ ms: number; silenceMs: number }>, inFlight: number, turns: number): Omit<StreamingResult, 'phases'> {
  const ms = loop.samples.map((s) => s.ms);
  const silences = loop.samples.map((s) => s.silenceMs);
  return {
    inFlight,
    turns,
    failed: loop.failed,
    wallMs: loop.wallMs,
    turnsPerSec: loop.samples.length / (loop.wallMs / 1000),
    p50Ms: pct(ms, 50),
    p99Ms: pct(ms, 99),
    silenceP99Ms: pct(silences, 99),
    silenceMaxMs: silences.length ? Math.max(...silences) : NaN,
    failures: loop.failures,
  };
}

/** One fresh session, one turn, read to its end. */
async function oneTurn(target: { url: string; apiKey: string }, session: string, prompt: string, timeoutMs: number): Promise<TurnSample> {
  const t0 = performance.now();
  const c = await TransportTestClient.connect(target.url, target.apiKey, { session });
  const at: Partial<Record<Phase, number>> = { open: performance.now() };
  const arrivals: number[] = [];
  let submitted = false;
  // Runs after the client's own listener: its state already holds this frame.
  c.ws.on('message', () => {
    if (!submitted) return;
    const now = performance.now();
    arrivals.push(now);
    at.accepted ??= now;
    if ((c.lastAssistant()?.content.length ?? 0) > 0) {
      at.firstText ??= now;
      if (c.lastAssistant()?.status === 'streaming') at.lastText = now;
    }
  });
  try {
    await c.waitFor('snapshot', (x) => x.state !== null, timeoutMs);
    at.snapshot = performance.now();
    submitted = true;
    c.send([{ type: 'submit', prompt }]);
    await c.waitFor(
      'turn end',
      (x) =>
        x.closeCode !== null ||
        x.errors().length > 0 ||
        (x.state?.status !== 'running' &&
          x.lastAssistant() !== undefined &&
          x.lastAssistant()?.status !== 'streaming' &&
          x.lastAssistant()?.status !== 'pending'),
      timeoutMs,
    );
    const ms = performance.now() - t0;
    if (c.errors().length > 0) throw new Error(`error frame: ${JSON.stringify(c.errors()[0])}`);
    if (c.closeCode !== null) throw new Error(`socket closed early (${c.closeCode})`);
    const last = c.lastAssistant();
    if (c.state?.status !== 'idle' || last?.status !== 'complete') throw new Error(`turn ended ${c.state?.status} / ${last?.status}: ${c.state?.error ?? ''}`);
    let silenceMs = 0;
    for (let i = 1; i < arrivals.length; i++) silenceMs = Math.max(silenceMs, arrivals[i] - arrivals[i - 1]);
    at.end = t0 + ms;
    at.firstText ??= at.end;
    at.lastText ??= at.firstText;
    let from = t0;
    const phases = {} as Record<Phase, number>;
    for (const p of PHASES) {
      const to = at[p] ?? from;
      phases[p] = to - from;
      from = to;
    }
    return { ms, silenceMs, phases };
  } finally {
    await c.close();
  }
}
