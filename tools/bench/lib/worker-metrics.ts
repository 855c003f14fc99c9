/**
 * What a worker's own /metrics (its health port, `HUB_WORKER_HEALTH_PORT`) says about a stretch
 * of load: how long turns waited in the queue, how long appends took (group commit included),
 * and how far the admission gate closed the intake (ADR 0028). Read before and after a level;
 * histograms are cumulative, so a level's share is the difference of their buckets.
 */
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (for a worker's health port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** One histogram's cumulative buckets (upper bound in seconds → count), summed over series. */
export type Buckets = Map<number, number>;

export interface WorkerSnapshot {
  queueWait: Buckets;
  append: Buckets;
  intake: number;
}

const QUEUE_WAIT = /^hub_queue_wait_seconds_bucket\{(?=[^}]*queue="turns")[^}]*le="([^"]+)"[^}]*\} (\S+)$/;
const APPEND = /^hub_event_append_duration_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)$/;
const INTAKE = /^hub_worker_turn_intake\{[^}]*\} (\S+)$/;

/** Parses the parts of a Prometheus text page this bench reads. */
export function parseWorkerMetrics(text: string): WorkerSnapshot {
  const snap: WorkerSnapshot = { queueWait: new Map(), append: new Map(), intake: NaN };
  const add = (into: Buckets, le: string, n: string) => {
    const bound = le === '+Inf' ? Infinity : Number(le);
    into.set(bound, (into.get(bound) ?? 0) + Number(n));
  };
  for (const line of text.split('\n')) {
    let m = QUEUE_WAIT.exec(line);
    if (m) add(snap.queueWait, m[1], m[2]);
    else if ((m = APPEND.exec(line))) add(snap.append, m[1], m[2]);
    else if ((m = INTAKE.exec(line))) snap.intake = Number(m[1]);
  }
  return snap;
}

/** Every worker's page, summed (intake: the smallest). */
export async function readWorkers(ports: readonly number[]): Promise<WorkerSnapshot> {
  const pages = await Promise.all(ports.map((p) => fetch(`http://127.0.0.1:${p}/metrics`).then((r) => r.text())));
  const total: WorkerSnapshot = { queueWait: new Map(), append: new Map(), intake: Infinity };
  for (const page of pages) {
    const s = parseWorkerMetrics(page);
    for (const [k, v] of s.queueWait) total.queueWait.set(k, (total.queueWait.get(k) ?? 0) + v);
    for (const [k, v] of s.append) total.append.set(k, (total.append.get(k) ?? 0) + v);
    total.intake = Math.min(total.intake, s.intake);
  }
  return total;
}

/**
 * The `q` quantile (0..1) of what was recorded between two readings, as the upper bound of the
 * bucket it falls in (Prometheus buckets say no more); NaN when nothing was recorded.
 */
export function quantileBetween(before: Buckets, after: Buckets, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return NaN;
  for (const bound of bounds) {
    if ((after.get(bound) ?? 0) - (before.get(bound) ?? 0) >= q * total) return bound;
  }
  return Infinity;
}
