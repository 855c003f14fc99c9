/**
 * The streaming workload of issue 31 against a peer (LangGraph, DBOS): the same closed loop and
 * the same measures as the hub's (`../lib/streaming-load.ts`, which drives the hub's transport
 * WebSocket and so cannot drive a peer), on a peer's own run function that reads a server-sent
 * event stream with `readSse`.
 *
 * A run's time is from its first request to the end of its stream (what a user waits); its
 * longest silence is the widest gap between two stream messages (SSE events) the client received
 * after its request, from the first to the last. A run fails when its function throws or it does
 * not end within `timeoutMs`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { closedLoop, measuresOf, type StreamingResult } from '../lib/streaming-load';
import { pct } from '../lib/percentile';

/** What the hub's workload reports and a peer's does too (the hub's reports more, e.g. its turns' phases). */
export type StreamingMeasures = Pick<
  StreamingResult,
  'inFlight' | 'turns' | 'failed' | 'wallMs' | 'turnsPerSec' | 'p50Ms' | 'p99Ms' | 'silenceP99Ms' | 'silenceMaxMs' | 'failures'
>;

export interface PeerRunSample {
  ms: number;
  silenceMs: number;
  /** From the run's first request to its stream's first word. */
  firstWordMs: number;
}

/** One run: a fresh thread / workflow, its stream read to the end; throws when it did not end as it should. */
export type PeerStreamingRun = (id: string, signal: AbortSignal) => Promise<PeerRunSample>;

export interface PeerStreamingOptions {
  /** Runs in flight at all times. */
  inFlight: number;
  /** Runs in all. */
  runs: number;
  /** A run that has not ended after this long fails (default 180 s, as the hub's). */
  timeoutMs?: number;
  /** Called every second with the runs ended so far (progress on stderr). */
  progress?: (ended: number, failed: number) => void;
}

/** Runs a peer's streaming run `o.runs` times with `o.inFlight` in flight and reports it as the hub's workload does. */
export async function peerStreamingLoad(run: PeerStreamingRun, o: PeerStreamingOptions): Promise<StreamingMeasures & { firstWordP50Ms: number }> {
  const timeoutMs = o.timeoutMs ?? 180_000;
  const loop = await closedLoop(o.inFlight, o.runs, (n, tag) => run(`stream-${tag}-${n}`, AbortSignal.timeout(timeoutMs)), o.progress);
  return {
    ...measuresOf(loop, o.inFlight, o.runs),
    firstWordP50Ms: pct(
      loop.samples.map((s) => s.firstWordMs),
      50,
    ),
  };
}

/**
 * Reads a server-sent event stream to its end, handing each event to `onEvent` as it arrives;
 * returns the longest gap between two events' arrivals (ms). An event's arrival is when the
 * bytes that complete it were read (as a WebSocket message's is when its frame was read), so
 * the events of one read arrive together.
 */
export async function readSse(res: Response, onEvent: (e: EventSourceMessage) => void): Promise<number> {
  if (!res.body) throw new Error('the response has no body');
  let at = 0;
  let last: number | undefined;
  let silenceMs = 0;
  const parser = createParser({
    onEvent(e) {
      if (last !== undefined) silenceMs = Math.max(silenceMs, at - last);
      last = at;
      onEvent(e);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    at = performance.now();
    parser.feed(decoder.decode(bytes, { stream: true }));
  }
  parser.feed(decoder.decode());
  return silenceMs;
}
