import type { Pool } from 'pg';
import { checkIds } from './ids';
import { asTenant } from './scope';

/** A snapshot read (whole, or its decision part): every command decision and turn job reads one. Named statements. */
const READ_SNAPSHOT = {
  // `::text`: the JSON as written, parsed by the fold's own decoder (not pg's).
  all: {
    name: 'hub_read_snapshot',
    text: 'SELECT version, state::text AS state FROM session_snapshots WHERE tenant_id = $1 AND stream_id = $2 AND fold_version = $3',
  },
  decision: {
    name: 'hub_read_snapshot_decision',
    text: `SELECT version, json_build_object('session', state->'session', 'open', state->'open', 'history', '[]'::json, 'fileEvents', '[]'::json, 'startCount', state->'startCount')::text AS state
             FROM session_snapshots WHERE tenant_id = $1 AND stream_id = $2 AND fold_version = $3`,
  },
};

/** A stream's stored snapshot: the fold's state (JSON text, as the fold encoded it) at `version`. */
export interface Snapshot {
  version: number;
  state: string;
}

/**
 * The latest snapshot of each stream (`session_snapshots`), per tenant. A snapshot is an
 * optimisation, never a source of truth: a reader asks for its fold version and gets nothing
 * for a row another fold wrote (it rebuilds from the stream and writes a new one), and a write
 * never replaces a newer snapshot of the same fold.
 */
export class SnapshotStore {
  constructor(private readonly pool: Pool) {}

  /**
   * The stream's snapshot written by fold `foldVersion`, or null. `decision`: only the state's
   * `session` and `open` keys (what a command decision needs), cut out by Postgres, so a long
   * conversation in the state is neither sent nor parsed.
   */
  async read(tenantId: string, streamId: string, foldVersion: number, part: 'all' | 'decision' = 'all'): Promise<Snapshot | null> {
    checkIds(tenantId, streamId);
    const { rows } = await asTenant(this.pool, tenantId).query<{ version: number; state: string }>(READ_SNAPSHOT[part], [tenantId, streamId, foldVersion]);
    return rows[0] ?? null;
  }

  /**
   * Stores `state` as the stream's snapshot at `version`, unless one of the same fold at a
   * version at least as high is already there (two writers race harmlessly). A row of another
   * fold version is replaced.
   */
  async write(tenantId: string, streamId: string, snapshot: Snapshot & { foldVersion: number }): Promise<void> {
    checkIds(tenantId, streamId);
    await asTenant(this.pool, tenantId).query(
      `INSERT INTO session_snapshots (tenant_id, stream_id, version, fold_version, state, updated_at)
       VALUES ($1, $2, $3, $4, $5::json, now())
       ON CONFLICT (tenant_id, stream_id) DO UPDATE
         SET version = EXCLUDED.version, fold_version = EXCLUDED.fold_version, state = EXCLUDED.state, updated_at = now()
       WHERE session_snapshots.fold_version <> EXCLUDED.fold_version OR session_snapshots.version < EXCLUDED.version`,
      [tenantId, streamId, snapshot.version, snapshot.foldVersion, snapshot.state],
    );
  }
}
