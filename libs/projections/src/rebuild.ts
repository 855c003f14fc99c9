import { asSystem } from '@hub/event-store';
import { Client, type Pool } from 'pg';
import { GroupCache, applyBatch, readsOf } from './apply-batch';
import { PROJECTION_LOCK_CLASS } from './leadership';
import type { ProjectionDef } from './projection';
import { BatchReader, ensureCheckpoint, resetProjection, visibleHead } from './store';

export interface RebuildProgress {
  position: number;
  /** The log's head when the rebuild started: done once the checkpoint reaches it. */
  target: number;
  eventsPerSec: number;
}

export interface RebuildResult {
  /** `here`: this process replayed the log; `active runner`: a running worker did, and we watched. */
  ranBy: 'here' | 'active runner';
  position: number;
  events: number;
  ms: number;
}

export interface RebuildOptions {
  connectionString: string;
  batchSize?: number;
  onProgress?: (p: RebuildProgress) => void;
  /** How often progress is reported. Default 1000 ms. */
  progressMs?: number;
}

/**
 * Rebuilds a projection from zero: empties its table and resets its checkpoint (one
 * transaction), then replays the log. If no process runs the projection, this one takes its lock
 * and replays; otherwise the active runner starts over by itself and this watches it catch up.
 */
export async function rebuildProjection(pool: Pool, def: ProjectionDef, o: RebuildOptions): Promise<RebuildResult> {
  const lock = new Client({ connectionString: o.connectionString, application_name: 'hub-projections-rebuild' });
  await lock.connect();
  try {
    await resetProjection(pool, def);
    const target = await visibleHead(pool);
    const t0 = Date.now();
    const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [PROJECTION_LOCK_CLASS, def.name]);
    const report = progress(o, target, t0);
    const position = rows[0].ok ? await replay(pool, def, target, o.batchSize ?? 1000, report) : await watch(pool, def, target, report);
    return { ranBy: rows[0].ok ? 'here' : 'active runner', position, events: await countUpTo(pool, position), ms: Date.now() - t0 };
  } finally {
    await lock.end();
  }
}

function progress(o: RebuildOptions, target: number, t0: number): (position: number, events: number, final?: boolean) => void {
  let last = 0;
  return (position, events, final = false) => {
    const now = Date.now();
    if (!final && now - last < (o.progressMs ?? 1000)) return;
    last = now;
    o.onProgress?.({ position, target, eventsPerSec: Math.round(events / Math.max(0.001, (now - t0) / 1000)) });
  };
}

/** Replays in this process until the log is applied up to `target` (a running runner takes it from there). */
async function replay(
  pool: Pool,
  def: ProjectionDef,
  target: number,
  batchSize: number,
  report: (p: number, n: number, final?: boolean) => void,
): Promise<number> {
  let position = await ensureCheckpoint(pool, def.name);
  let events = 0;
  const reader = new BatchReader(pool, batchSize, readsOf(def));
  // The table was just emptied and this process holds the lock: the cache starts complete.
  const cache = new GroupCache(true);
  while (position < target) {
    const { events: batch } = await reader.next(position);
    if (batch.length === 0) {
      // Below the target but nothing settled yet: a writer is still open.
      await new Promise((r) => setTimeout(r, 10));
      continue;
    }
    if (!(await applyBatch(pool, def, position, batch, { cache }))) {
      position = await ensureCheckpoint(pool, def.name);
      continue;
    }
    position = batch[batch.length - 1].globalPosition;
    events += batch.length;
    report(position, events);
  }
  report(position, events, true);
  return position;
}

async function watch(pool: Pool, def: ProjectionDef, target: number, report: (p: number, n: number, final?: boolean) => void): Promise<number> {
  for (;;) {
    const position = await ensureCheckpoint(pool, def.name);
    const done = position >= target;
    report(position, await countUpTo(pool, position), done);
    if (done) return position;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function countUpTo(pool: Pool, position: number): Promise<number> {
  const { rows } = await asSystem(pool, 'projections').query<{ n: string }>('SELECT count(*)::text AS n FROM events WHERE global_position <= $1', [position]);
  return Number(rows[0].n);
}
