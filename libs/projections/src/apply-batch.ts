import { HubEvent } from '@hub/domain';
import type { Pool } from 'pg';
import type { ProjectedEvent, ProjectionDef, Row } from './projection';
import { advanceCheckpointSql, isMoved, loadGroups, upsertSql, type CheckpointAdvance } from './store';

/** Every event type of the canonical union; anything else is skipped and counted. */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(HubEvent.options.map((o) => o.shape.type.value));

/** What folding one batch produced, before it is written. */
export interface FoldedBatch<R extends Row> {
  changed: R[];
  groups: number;
  advance: CheckpointAdvance;
}

const SEP = '\u0000';

/**
 * Pure: folds a batch into the loaded rows. Unknown types (and a fold that throws on a malformed
 * event) are skipped and counted rather than stopping the projection for good.
 */
export function foldBatch<R extends Row>(
  def: ProjectionDef<R>,
  events: readonly ProjectedEvent[],
  loaded: readonly R[],
  onSkip: (e: ProjectedEvent, error?: unknown) => void = () => undefined,
): FoldedBatch<R> {
  const groupCols = def.table.group.map((g) => g.column);
  const keyOf = (values: unknown[]) => values.map(String).join(SEP);
  const groups = new Map<string, R[]>();
  for (const row of loaded) {
    const k = keyOf(groupCols.map((c) => row[c]));
    groups.set(k, [...(groups.get(k) ?? []), row]);
  }
  const original = new Set<R>(loaded);
  let skipped = 0;
  let lastSkippedType: string | null = null;
  for (const e of events) {
    if (!KNOWN_EVENT_TYPES.has(e.type)) {
      skipped++;
      lastSkippedType = e.type;
      onSkip(e);
      continue;
    }
    const g = def.groupOf(e);
    if (!g) continue;
    const k = keyOf(g);
    try {
      groups.set(k, def.evolve(groups.get(k) ?? [], e));
    } catch (error) {
      skipped++;
      lastSkippedType = e.type;
      onSkip(e, error);
    }
  }
  const changed = [...groups.values()].flat().filter((r) => !original.has(r));
  const last = events[events.length - 1];
  return { changed, groups: groups.size, advance: { position: last.globalPosition, skipped, lastSkippedType, lastEventAt: last.createdAt } };
}

/** The distinct groups a batch touches, in table.group order. */
export function groupsOf(def: ProjectionDef, events: readonly ProjectedEvent[]): string[][] {
  const seen = new Map<string, string[]>();
  for (const e of events) {
    if (!KNOWN_EVENT_TYPES.has(e.type)) continue;
    const g = def.groupOf(e);
    if (g) seen.set(g.join(SEP), g);
  }
  return [...seen.values()];
}

/**
 * A batch's commit does not wait for its WAL flush (the fsync dominated a batch's cost). Safe
 * here: a crash can lose only whole recent batches, rows and checkpoint together, and the runner
 * applies them again from the durable log. The event store's appends stay synchronous.
 */
const NO_FLUSH_WAIT = 'SET LOCAL synchronous_commit = off';

export interface ApplyOptions {
  onSkip?: (e: ProjectedEvent, error?: unknown) => void;
  /** Test hook: runs inside the transaction, after every write, just before COMMIT. */
  beforeCommit?: () => Promise<void>;
}

/**
 * Applies one batch: load the groups it touches, fold, then in one transaction move the
 * checkpoint from `expected` (failing if it is elsewhere) and write the changed rows. Returns
 * false, having written nothing, when the checkpoint had moved (a rebuild, or another runner).
 *
 * The groups are read outside the transaction: if another runner commits before our write, the
 * checkpoint guard fails and our fold of stale rows is discarded with the transaction. The write
 * is a single simple query (statements joined by `;`, which Postgres runs as one implicit
 * transaction), so a batch costs three round trips: read events, load groups, write.
 */
export async function applyBatch<R extends Row>(pool: Pool, def: ProjectionDef<R>, expected: number, events: readonly ProjectedEvent[], opts: ApplyOptions = {}): Promise<boolean> {
  const groups = groupsOf(def as ProjectionDef, events);
  const loaded = groups.length > 0 ? await loadGroups(pool, def, groups) : [];
  const folded = foldBatch(def, events, loaded, opts.onSkip);
  const write = [NO_FLUSH_WAIT, advanceCheckpointSql(def.name, expected, folded.advance), upsertSql(def.table, folded.changed)].filter(Boolean).join(';\n');
  if (!opts.beforeCommit) {
    try {
      await pool.query(write);
      return true;
    } catch (e) {
      if (isMoved(e)) return false;
      throw e;
    }
  }
  const client = await pool.connect();
  try {
    await client.query(`BEGIN;\n${write}`);
    await opts.beforeCommit();
    await client.query('COMMIT');
    client.release();
    return true;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    // The connection may be half-way through anything: do not hand it back to the pool.
    client.release(e instanceof Error ? e : new Error(String(e)));
    if (isMoved(e)) return false;
    throw e;
  }
}
