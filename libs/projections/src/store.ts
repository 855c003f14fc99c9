import type { EventMetadata } from '@hub/domain';
import { EVENTS_CHANNEL, asSystem, beginAs, systemScope, type ScopedDb } from '@hub/event-store';
import type { Pool, PoolClient } from 'pg';
import { sqlLiteral } from './sql-literal';
import type { ProjectedEvent, ProjectionDef, Row, TableSpec } from './projection';

/** NOTIFY channel a projection signals on after each commit (payload `name:position`). */
export const PROJECTIONS_CHANNEL = 'hub_projections';

// Settled events only: written by a transaction older than every one still running, so the
// rows read are a prefix of the log by position (libs/event-store README, "Global order").
// The visible head comes in the same snapshot: above the batch, something committed is not
// settled yet (a writer, maybe not an append, is still open) and the runner looks again soon.
const READ_BATCH = {
  name: 'hub_projection_batch',
  text: `
WITH head AS (SELECT COALESCE(max(global_position), 0)::text AS visible FROM events)
SELECT head.visible, e.* FROM head LEFT JOIN LATERAL (
  SELECT global_position::text AS p, tenant_id, stream_id, type,
         CASE WHEN type = ANY($3) THEN data END AS data,
         CASE WHEN type = ANY($3) THEN metadata END AS metadata,
         created_at
    FROM events
   WHERE global_position > $1 AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY global_position LIMIT $2) e ON true`,
};

interface BatchRow {
  visible: string;
  p: string | null;
  tenant_id: string;
  stream_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata | null;
  created_at: Date;
}

/** A batch, and the highest committed position (settled or not) in the same snapshot. */
export interface Batch {
  events: ProjectedEvent[];
  visibleHead: number;
}

/** The next settled events after `after`, across every tenant, in global order (system work). */
export async function readBatch(pool: Pool, after: number, limit: number, reads: readonly string[]): Promise<Batch> {
  const { rows } = await asSystem(pool, 'projections').query<BatchRow>(READ_BATCH, [after, limit, reads]);
  const events = rows
    .filter((r) => r.p !== null)
    .map((r) => ({
      type: r.type,
      data: r.data,
      metadata: r.metadata,
      tenantId: r.tenant_id,
      streamId: r.stream_id,
      globalPosition: Number(r.p),
      createdAt: r.created_at.toISOString(),
    }));
  return { events, visibleHead: Number(rows[0].visible) };
}

/** The highest committed position (settled or not). */
export async function visibleHead(pool: Pool): Promise<number> {
  const { rows } = await asSystem(pool, 'projections').query<{ head: string }>('SELECT COALESCE(max(global_position), 0)::text AS head FROM events');
  return Number(rows[0].head);
}

/** Creates the checkpoint row if it is missing, and returns where the projection stands. */
export async function ensureCheckpoint(pool: Pool, name: string): Promise<number> {
  await pool.query('INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
  const { rows } = await pool.query<{ position: string }>('SELECT position::text AS position FROM projection_checkpoints WHERE name = $1', [name]);
  return Number(rows[0].position);
}

/** Where the projection stands (0 without a checkpoint row). A plain read: takes no transaction id. */
export async function readCheckpoint(pool: Pool, name: string): Promise<number> {
  const { rows } = await pool.query<{ position: string }>('SELECT position::text AS position FROM projection_checkpoints WHERE name = $1', [name]);
  return rows[0] ? Number(rows[0].position) : 0;
}

/** Locks the checkpoint row for this transaction and returns its position. */
export async function lockCheckpoint(client: PoolClient, name: string): Promise<number | null> {
  const { rows } = await client.query<{ position: string }>('SELECT position::text AS position FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [name]);
  return rows[0] ? Number(rows[0].position) : null;
}

/** What a batch moves the checkpoint by. */
export interface CheckpointAdvance {
  position: number;
  skipped: number;
  lastSkippedType: string | null;
  lastEventAt: string;
}

/** SQLSTATE of the guard below: the checkpoint was not where the batch started. */
export const CHECKPOINT_MOVED = '22012';

/**
 * Moves the checkpoint from `expected` and notifies. When the checkpoint is no longer at
 * `expected` (another runner moved it, or a rebuild reset it) the statement fails on purpose
 * (division by zero, {@link CHECKPOINT_MOVED}), which aborts the transaction it is part of:
 * the batch's rows are never written without their checkpoint.
 */
export function advanceCheckpointSql(name: string, expected: number, a: CheckpointAdvance): string {
  const n = sqlLiteral(name);
  return `WITH u AS (
    UPDATE projection_checkpoints
       SET position = ${int(a.position)}, skipped_unknown = skipped_unknown + ${int(a.skipped)},
           last_skipped_type = COALESCE(${a.lastSkippedType === null ? 'NULL' : sqlLiteral(a.lastSkippedType)}, last_skipped_type),
           last_event_at = ${sqlLiteral(a.lastEventAt)}, updated_at = clock_timestamp()
     WHERE name = ${n} AND position = ${int(expected)} RETURNING name)
  SELECT pg_notify('${PROJECTIONS_CHANNEL}', ${sqlLiteral(`${name}:${a.position}`)}), 1 / (SELECT count(*)::int FROM u) AS moved_guard`;
}

export function isMoved(e: unknown): boolean {
  return (e as { code?: unknown })?.code === CHECKPOINT_MOVED;
}

function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/**
 * The rows of the given groups, as JSON objects with the table's column names. A lateral
 * lookup per group, so each is an index probe whatever the table's statistics say (right after a
 * rebuild's TRUNCATE they say "empty", and a hash join would scan the whole table per batch).
 * `db` is the runner's (system work: groups of every tenant) or one tenant's (a replay check).
 */
export async function loadGroups<R extends Row>(db: ScopedDb, def: ProjectionDef<R>, groups: string[][]): Promise<R[]> {
  if (groups.length === 0) return [];
  const t = def.table;
  const cols = t.group.map((g) => g.column);
  const unnest = t.group.map((g, i) => `$${i + 1}::${g.type}[]`).join(', ');
  const match = cols.map((c) => `t.${c} = k.${c}`).join(' AND ');
  const values = t.group.map((_, i) => groups.map((g) => g[i]));
  const { rows } = await db.query<{ r: R }>(
    `SELECT x.r FROM unnest(${unnest}) AS k(${cols.join(', ')})
       CROSS JOIN LATERAL (SELECT row_to_json(t) AS r FROM ${t.table} t WHERE ${match}) x`,
    values,
  );
  return rows.map((x) => x.r);
}

/** Deletes every row of one session (an erasure's tombstone reached this read model). */
export function eraseSessionSql(t: TableSpec, tenantId: string, sessionId: string): string {
  return `DELETE FROM ${t.table} WHERE tenant_id = ${sqlLiteral(tenantId)} AND session_id = ${sqlLiteral(sessionId)}`;
}

/** Inserts or replaces rows, all in one statement (empty when there are none). */
export function upsertSql(t: TableSpec, rows: Row[]): string {
  if (rows.length === 0) return '';
  const cols = t.columns.join(', ');
  const updates = t.columns
    .filter((c) => !t.key.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  // Inlined as a literal, not a parameter: the whole write goes as one simple query (one round trip).
  return `INSERT INTO ${t.table} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${t.table}, ${sqlLiteral(JSON.stringify(rows))}::json)
     ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${updates}`;
}

/**
 * Rebuild from zero: empties the table and puts the checkpoint back at 0, in one transaction.
 * The active runner's next batch finds the checkpoint moved and starts over from 0.
 */
export async function resetProjection(pool: Pool, def: ProjectionDef): Promise<void> {
  await ensureCheckpoint(pool, def.name);
  const client = await pool.connect();
  try {
    await beginAs(client, systemScope('projections'));
    await lockCheckpoint(client, def.name);
    await client.query(`TRUNCATE ${def.table.table}`);
    await client.query(
      `UPDATE projection_checkpoints SET position = 0, skipped_unknown = 0, last_skipped_type = NULL, last_event_at = NULL, updated_at = clock_timestamp() WHERE name = $1`,
      [def.name],
    );
    await client.query(`SELECT pg_notify('${PROJECTIONS_CHANNEL}', $1 || ':0')`, [def.name]);
    // Wakes the active runner (it listens to the log's channel) so it starts over at once.
    await client.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '0')`);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Reads batches in order, and while the caller applies a full batch (catching up: a rebuild,
 * or a runner that was down) already reads the next one, so reading and writing overlap.
 */
export class BatchReader {
  private ahead: { after: number; batch: Promise<Batch> } | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly size: number,
    private readonly reads: readonly string[],
  ) {}

  async next(after: number): Promise<Batch> {
    const ahead = this.ahead;
    this.ahead = undefined;
    const batch = ahead && ahead.after === after ? await ahead.batch : await readBatch(this.pool, after, this.size, this.reads);
    const { events } = batch;
    if (events.length === this.size) {
      const last = events[events.length - 1].globalPosition;
      const next = readBatch(this.pool, last, this.size, this.reads);
      // Not awaited when the checkpoint moves meanwhile; a failure surfaces when it is used.
      next.catch(() => undefined);
      this.ahead = { after: last, batch: next };
    }
    return batch;
  }
}
