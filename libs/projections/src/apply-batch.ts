import { HubEvent } from '@hub/domain';
import type { Pool } from 'pg';
import type { ProjectedEvent, ProjectionDef, Row } from './projection';
import { advanceCheckpoint, loadGroups, lockCheckpoint, upsertRows, type CheckpointAdvance } from './store';

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

export interface ApplyOptions {
  onSkip?: (e: ProjectedEvent, error?: unknown) => void;
  /** Test hook: runs inside the transaction just before COMMIT. */
  beforeCommit?: () => Promise<void>;
}

/**
 * Applies one batch in one transaction: lock the checkpoint, check it is still at `expected`,
 * load the touched groups, fold, write the changed rows and the new checkpoint, COMMIT. Returns
 * false (nothing written) when the checkpoint had moved.
 */
export async function applyBatch<R extends Row>(pool: Pool, def: ProjectionDef<R>, expected: number, events: readonly ProjectedEvent[], opts: ApplyOptions = {}): Promise<boolean> {
  const groups = groupsOf(def as ProjectionDef, events);
  if (groups.length === 0 && !opts.beforeCommit) {
    // Nothing of ours in the batch: moving the checkpoint is one atomic compare-and-set.
    return advanceCheckpoint(pool, def.name, expected, foldBatch(def, events, [], opts.onSkip).advance);
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if ((await lockCheckpoint(client, def.name)) !== expected) {
      await client.query('ROLLBACK');
      client.release();
      return false;
    }
    const loaded = await loadGroups(client, def, groups);
    const folded = foldBatch(def, events, loaded, opts.onSkip);
    await upsertRows(client, def.table, folded.changed);
    await advanceCheckpoint(client, def.name, expected, folded.advance);
    await opts.beforeCommit?.();
    await client.query('COMMIT');
    client.release();
    return true;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    // The connection may be half-way through anything: do not hand it back to the pool.
    client.release(e instanceof Error ? e : new Error(String(e)));
    throw e;
  }
}
