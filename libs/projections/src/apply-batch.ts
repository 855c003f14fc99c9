import { HUB_EVENT_TYPES, SessionErased } from '@hub/domain';
import { asSystem, scopeStatement, systemScope } from '@hub/event-store';
import type { Pool } from 'pg';
import type { ProjectedEvent, ProjectionDef, Row } from './projection';
import { advanceCheckpointSql, eraseSessionSql, isMoved, loadGroups, upsertSql, type CheckpointAdvance } from './store';

/** The tombstone of an erased session (on the tenant's admin stream): its rows go from every session-keyed read model. */
const ERASED = 'SessionErased';

/** Whether a read model's rows are keyed by session (so an erasure removes them). */
export function keyedBySession(def: ProjectionDef): boolean {
  return def.table.group[0]?.column === 'tenant_id' && def.table.group[1]?.column === 'session_id';
}

/** The event types whose data a projection's reader must fetch: its own, and the tombstone when keyed by session. */
export function readsOf(def: ProjectionDef): string[] {
  return keyedBySession(def) ? [...def.reads, ERASED] : [...def.reads];
}

/** What folding one batch produced, before it is written. */
export interface FoldedBatch<R extends Row> {
  /** Sessions erased in this batch (tenant, session), in order: their rows are deleted before `changed` is written. */
  erased: [string, string][];
  changed: R[];
  /** Every touched group's rows after the batch, by group key. */
  after: Map<string, R[]>;
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
  const erased: [string, string][] = [];
  let skipped = 0;
  let lastSkippedType: string | null = null;
  for (const e of events) {
    if (e.type === ERASED) {
      if (!keyedBySession(def as unknown as ProjectionDef)) continue;
      const parsed = SessionErased.shape.data.safeParse(e.data);
      if (!parsed.success) continue;
      // Everything folded so far of that session goes; what follows in the batch starts afresh.
      const prefix = keyOf([e.tenantId, parsed.data.sessionId]);
      for (const k of [...groups.keys()]) if (k === prefix || k.startsWith(prefix + SEP)) groups.delete(k);
      erased.push([e.tenantId, parsed.data.sessionId]);
      continue;
    }
    // Only a type from a newer hub is skipped and counted as unknown (HUB_EVENT_TYPES: all the hub writes).
    if (!HUB_EVENT_TYPES.has(e.type)) {
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
  return { erased, changed, after: groups, advance: { position: last.globalPosition, skipped, lastSkippedType, lastEventAt: last.createdAt } };
}

/** The distinct groups a batch touches, in table.group order. */
export function groupsOf(def: ProjectionDef, events: readonly ProjectedEvent[]): string[][] {
  const seen = new Map<string, string[]>();
  for (const e of events) {
    if (!HUB_EVENT_TYPES.has(e.type) || e.type === ERASED) continue;
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

/** A batch writes rows of every tenant it saw: system work, said in the write's own first statement. */
const AS_PROJECTIONS = scopeStatement(systemScope('projections'));

/**
 * The rows of each group as this process last wrote them. Valid while this process is the
 * table's only writer: every other writer moves the checkpoint, so the owner drops the cache
 * whenever a write fails or the checkpoint is not where it left it. A replay after a reset
 * starts it complete and needs no load query at all; a live runner saves the load for the
 * sessions and turns it saw last.
 */
export class GroupCache<R extends Row = Row> {
  private readonly rows = new Map<string, R[]>();
  /**
   * @param complete true when the table was empty when this process became its only writer
   *   (a rebuild's reset): a group not cached then has no rows.
   */
  constructor(
    public complete: boolean,
    private readonly maxGroups = 200_000,
  ) {}

  get(key: string): R[] | undefined {
    return this.rows.get(key);
  }

  update(after: Map<string, R[]>): void {
    for (const [k, v] of after) this.rows.set(k, v);
    if (this.rows.size > this.maxGroups) this.invalidate();
  }

  invalidate(): void {
    this.rows.clear();
    this.complete = false;
  }
}

async function loadWithCache<R extends Row>(pool: Pool, def: ProjectionDef<R>, groups: string[][], cache: GroupCache<R> | undefined): Promise<R[]> {
  const db = asSystem(pool, 'projections');
  if (!cache) return groups.length > 0 ? loadGroups(db, def, groups) : [];
  const cached = groups.map((g) => cache.get(g.join(SEP)));
  const missing = groups.filter((_, i) => cached[i] === undefined);
  const fromDb = missing.length > 0 && !cache.complete ? await loadGroups(db, def, missing) : [];
  return [...cached.flatMap((rows) => rows ?? []), ...fromDb];
}

export interface ApplyOptions<R extends Row = Row> {
  onSkip?: (e: ProjectedEvent, error?: unknown) => void;
  cache?: GroupCache<R>;
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
export async function applyBatch<R extends Row>(
  pool: Pool,
  def: ProjectionDef<R>,
  expected: number,
  events: readonly ProjectedEvent[],
  opts: ApplyOptions<R> = {},
): Promise<boolean> {
  const ok = await write(pool, def, expected, events, opts).catch((e: unknown) => {
    opts.cache?.invalidate();
    throw e;
  });
  if (!ok) opts.cache?.invalidate();
  return ok;
}

async function write<R extends Row>(
  pool: Pool,
  def: ProjectionDef<R>,
  expected: number,
  events: readonly ProjectedEvent[],
  opts: ApplyOptions<R>,
): Promise<boolean> {
  const groups = groupsOf(def as ProjectionDef, events);
  const loaded = await loadWithCache(pool, def, groups, opts.cache);
  const folded = foldBatch(def, events, loaded, opts.onSkip);
  const sql = [
    AS_PROJECTIONS,
    NO_FLUSH_WAIT,
    advanceCheckpointSql(def.name, expected, folded.advance),
    ...folded.erased.map(([t, s]) => eraseSessionSql(def.table, t, s)),
    upsertSql(def.table, folded.changed),
  ]
    .filter(Boolean)
    .join(';\n');
  // An erased session's groups may be cached under keys this batch did not touch: start the cache over.
  if (folded.erased.length > 0) opts.cache?.invalidate();
  if (!opts.beforeCommit) {
    try {
      await pool.query(sql);
      opts.cache?.update(folded.after);
      return true;
    } catch (e) {
      if (isMoved(e)) return false;
      throw e;
    }
  }
  const client = await pool.connect();
  try {
    await client.query(`BEGIN;\n${sql}`);
    await opts.beforeCommit();
    await client.query('COMMIT');
    client.release();
    opts.cache?.update(folded.after);
    return true;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    // The connection may be half-way through anything: do not hand it back to the pool.
    client.release(e instanceof Error ? e : new Error(String(e)));
    if (isMoved(e)) return false;
    throw e;
  }
}
