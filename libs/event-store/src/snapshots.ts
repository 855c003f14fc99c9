import type { Recorded } from '@hub/domain';
import type { Pool } from 'pg';
import type { StoredEvent } from './types';
import { checkIds } from './ids';
import { EVENT_COLUMNS, toRecorded, type EventRow } from './rows';
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

/**
 * The snapshot and the events after it, in one statement (one round trip, one snapshot of the
 * database, where a read of each took two): what a session load that this process has not kept
 * needs, for every decision on a session new to this ingress and every turn new to this worker.
 * The state rides on the first row only (a long conversation is not sent once per event).
 */
const READ_WITH_TAIL = Object.fromEntries(
  (['all', 'decision'] as const).map((part) => [
    part,
    {
      name: `hub_read_snapshot_tail${part === 'all' ? '' : '_decision'}`,
      text: `WITH snap AS (${READ_SNAPSHOT[part].text})
             SELECT s.version, snap.version AS snapshot_version,
                    CASE WHEN e.n IS NULL OR e.n = 1 THEN snap.state END AS snapshot_state, e.*
               FROM (SELECT COALESCE((SELECT version FROM streams WHERE tenant_id = $1 AND stream_id = $2), 0) AS version) s
               LEFT JOIN snap ON true
               LEFT JOIN LATERAL (
                 SELECT ${EVENT_COLUMNS}, row_number() OVER (ORDER BY stream_position) AS n FROM events
                  WHERE tenant_id = $1 AND stream_id = $2 AND stream_position > COALESCE(snap.version, 0)
                  ORDER BY stream_position
               ) e ON true
              ORDER BY e.stream_position`,
    },
  ]),
) as Record<'all' | 'decision', { name: string; text: string }>;

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
   * {@link read}, and the stream's events after the snapshot (all of them without one) with the
   * stream's version, as one read: what `read` then `EventStore.readStream` from its version
   * give, in one round trip and one database snapshot.
   */
  async readWithTail<E extends StoredEvent = StoredEvent>(
    tenantId: string,
    streamId: string,
    foldVersion: number,
    part: 'all' | 'decision' = 'all',
  ): Promise<{ snapshot: Snapshot | null; version: number; events: Recorded<E>[] }> {
    checkIds(tenantId, streamId);
    type Row = Partial<EventRow> & { version: number; snapshot_version: number | null; snapshot_state: string | null };
    const { rows } = await asTenant(this.pool, tenantId).query<Row>(READ_WITH_TAIL[part], [tenantId, streamId, foldVersion]);
    const first = rows[0];
    const state = rows.find((r) => r.snapshot_state !== null)?.snapshot_state ?? null;
    const snapshot = first && first.snapshot_version !== null && state !== null ? { version: first.snapshot_version, state } : null;
    const events = rows.filter((r) => r.global_position !== null).map((r) => toRecorded<E>(r as EventRow));
    return { snapshot, version: first?.version ?? 0, events };
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
