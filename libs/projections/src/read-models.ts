import { ADMIN_STREAM_ID, DomainError, sessionStreamId } from '@hub/domain';
import { asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { sessionView, turnView, approvalView, type DbRow } from './views';
import type { ApprovalView, SessionChange, SessionView, TurnView } from './views';
import { sessionsProjection } from './folds/sessions';

export type { ApprovalView, SessionView, TurnView } from './views';

/** One page of a list, and the opaque cursor of the next (null on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type CursorKind = 'sessions' | 'turns' | 'approvals';

/** Opaque to clients: which list it belongs to and the keyset position to continue after. */
function encodeCursor(kind: CursorKind, position: number): string {
  return Buffer.from(JSON.stringify({ v: 1, k: kind, p: position })).toString('base64url');
}

/** A cursor this list handed out, or `INVALID_COMMAND` naming the `cursor` field. */
export function decodeCursor(kind: CursorKind, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const bad = () => new DomainError('INVALID_COMMAND', `cursor: not a cursor of this ${kind} list`, { field: 'cursor' });
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const c = parsed as { v?: unknown; k?: unknown; p?: unknown };
  if (c?.v !== 1 || c.k !== kind || !Number.isSafeInteger(c.p) || (c.p as number) < 0) throw bad();
  return c.p as number;
}

function page<T>(rows: DbRow[], limit: number, kind: CursorKind, view: (r: DbRow) => T, keyOf: (r: DbRow) => number): Page<T> {
  const more = rows.length > limit;
  const items = rows.slice(0, limit);
  return { items: items.map(view), nextCursor: more ? encodeCursor(kind, keyOf(items[items.length - 1])) : null };
}

/** `ReadModels.runningSessions`' statement ($1 tenant, $2 the sessions projection, $3 the session stream prefix), named: planned once per connection. */
export const RUNNING_SESSIONS_SQL = {
  name: 'hub_running_sessions',
  // One pass over each: the log after the checkpoint, grouped by stream (its last started turn,
  // and every turn it ended: a turn starts once, so an end is always after its start), joined
  // to the read model's running rows. A stream with no start or end after the checkpoint is as
  // the read model says.
  // (The checkpoint is MATERIALIZED: inlined, it becomes a parameter the events index cannot use.)
  text: `WITH cp AS MATERIALIZED (SELECT COALESCE((SELECT position FROM projection_checkpoints WHERE name = $2), 0) AS p),
       tail AS (
         SELECT stream_id,
                (array_agg(data->>'turnId' ORDER BY global_position DESC) FILTER (WHERE type = 'TurnStarted'))[1] AS started,
                COALESCE(array_agg(data->>'turnId') FILTER (WHERE type <> 'TurnStarted'), '{}') AS ended
           FROM events, cp
          WHERE tenant_id = $1 AND global_position > cp.p AND starts_with(stream_id, $3)
            AND type IN ('TurnStarted', 'TurnCompleted', 'TurnFailed', 'TurnCancelled')
          GROUP BY stream_id),
       running AS (SELECT $3 || session_id AS stream_id, active_turn_id FROM read_sessions WHERE tenant_id = $1 AND status <> 'idle')
       SELECT substr(COALESCE(t.stream_id, r.stream_id), length($3) + 1) AS session_id
         FROM running r FULL JOIN tail t ON t.stream_id = r.stream_id
        WHERE COALESCE(t.started, r.active_turn_id) IS NOT NULL
          AND NOT (COALESCE(t.started, r.active_turn_id) = ANY (COALESCE(t.ended, '{}')))`,
};

/**
 * Tenant-scoped reads of the read models with keyset pagination. Every query names the tenant
 * first and runs as that tenant (row-level security); another tenant's rows are invisible, not
 * forbidden.
 */
export class ReadModels {
  constructor(private readonly pool: Pool) {}

  /** Sessions, most recently active first. */
  async sessions(tenantId: string, q: { limit: number; cursor?: string; status?: string; openedVia?: string; openedBy?: string }): Promise<Page<SessionView>> {
    const after = decodeCursor('sessions', q.cursor);
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>(
      `SELECT * FROM read_sessions WHERE tenant_id = $1 AND ($2::bigint IS NULL OR last_position < $2)
          AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR opened_via = $4)
          AND ($6::text IS NULL OR opened_by = $6)
        ORDER BY last_position DESC LIMIT $5`,
      [tenantId, after, q.status ?? null, q.openedVia ?? null, q.limit + 1, q.openedBy ?? null],
    );
    return page(rows, q.limit, 'sessions', sessionView, (r) => Number(r.last_position));
  }

  /**
   * What changed in the tenant's sessions list after `after` (a position), least recent first: a
   * session each time it moved, and each session erased (its tombstone). `openedBy` keeps a
   * client key to the sessions it opened; erasures are left out for it (an erased session's
   * opener is erased with it, and a client key cannot erase).
   *
   * Rows come from the read model, which lags the log; tombstones come from the log. Only
   * tombstones the sessions projection has passed are read (its checkpoint, in the rows' own
   * snapshot), so a row the projection writes later is never behind a cursor already moved past it.
   */
  async sessionChanges(tenantId: string, after: number, limit = 500, openedBy?: string): Promise<SessionChange[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow & { checkpoint: string }>(
      `WITH cp AS (SELECT COALESCE((SELECT position FROM projection_checkpoints WHERE name = $5), 0)::text AS checkpoint)
       SELECT cp.checkpoint, s.* FROM cp LEFT JOIN LATERAL (
         SELECT * FROM read_sessions WHERE tenant_id = $1 AND last_position > $2 AND ($4::text IS NULL OR opened_by = $4)
          ORDER BY last_position LIMIT $3) s ON true`,
      [tenantId, after, limit, openedBy ?? null, sessionsProjection.name],
    );
    const moved: SessionChange[] = rows.filter((r) => r.session_id !== null).map((r) => ({ event: 'session', data: sessionView(r) }));
    if (openedBy !== undefined) return moved;
    // A full page of rows: tombstones beyond its last row wait for the next page, in order.
    const upTo = moved.length === limit ? moved[moved.length - 1].data.position : Number(rows[0]?.checkpoint ?? 0);
    if (upTo <= after) return moved;
    const { rows: tombstones } = await asTenant(this.pool, tenantId).query<{ p: string; session_id: string; created_at: Date }>(
      `SELECT global_position::text AS p, data->>'sessionId' AS session_id, created_at FROM events
        WHERE tenant_id = $1 AND stream_id = $2 AND type = 'SessionErased' AND global_position > $3 AND global_position <= $4
        ORDER BY global_position LIMIT $5`,
      [tenantId, ADMIN_STREAM_ID, after, upTo, limit],
    );
    const erased: SessionChange[] = tombstones.map((t) => ({
      event: 'erased',
      data: { sessionId: t.session_id, erasedAt: t.created_at.toISOString(), position: Number(t.p) },
    }));
    // A full page of tombstones: rows beyond its last wait for the next page.
    const end = erased.length === limit ? erased[erased.length - 1].data.position : Infinity;
    return [...moved.filter((c) => c.data.position <= end), ...erased].sort((a, b) => a.data.position - b.data.position);
  }

  /**
   * Where a live list starts (0 with nothing yet): the tenant's newest change, a session's last
   * event or an erasure the sessions projection has passed, whichever is later.
   */
  async sessionHead(tenantId: string): Promise<number> {
    const { rows } = await asTenant(this.pool, tenantId).query<{ head: string }>(
      `WITH cp AS (SELECT COALESCE((SELECT position FROM projection_checkpoints WHERE name = $2), 0) AS p)
       SELECT GREATEST(
         COALESCE((SELECT max(last_position) FROM read_sessions WHERE tenant_id = $1), 0),
         COALESCE((SELECT max(global_position) FROM events, cp WHERE tenant_id = $1 AND stream_id = $3 AND type = 'SessionErased' AND global_position <= cp.p), 0)
       )::text AS head`,
      [tenantId, sessionsProjection.name, ADMIN_STREAM_ID],
    );
    return Number(rows[0].head);
  }

  /**
   * The tenant's sessions running a turn now (started, not ended; waiting for an approval counts),
   * exactly as the committed log says, not one projection step behind: the read model's rows as
   * of its checkpoint, corrected by the turn starts and ends the log holds after it, read in one
   * snapshot. What a `concurrentTurns` limit counts.
   */
  async runningSessions(tenantId: string): Promise<string[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<{ session_id: string }>(RUNNING_SESSIONS_SQL, [
      tenantId,
      sessionsProjection.name,
      sessionStreamId(''),
    ]);
    return rows.map((r) => r.session_id);
  }

  async session(tenantId: string, sessionId: string): Promise<SessionView | null> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>('SELECT * FROM read_sessions WHERE tenant_id = $1 AND session_id = $2', [
      tenantId,
      sessionId,
    ]);
    return rows[0] ? sessionView(rows[0]) : null;
  }

  /** A session's turns in the order they were requested. */
  async turns(tenantId: string, sessionId: string, q: { limit: number; cursor?: string; status?: string }): Promise<Page<TurnView>> {
    const after = decodeCursor('turns', q.cursor);
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>(
      `SELECT * FROM read_turns WHERE tenant_id = $1 AND session_id = $2 AND requested_position > $3
          AND ($4::text IS NULL OR status = $4)
        ORDER BY requested_position LIMIT $5`,
      [tenantId, sessionId, after ?? 0, q.status ?? null, q.limit + 1],
    );
    return page(rows, q.limit, 'turns', turnView, (r) => Number(r.requested_position));
  }

  /** The tenant's approvals of one status, across sessions and protocols, newest request first. */
  async approvals(
    tenantId: string,
    q: { status: 'pending' | 'resolved'; limit: number; cursor?: string; sessionId?: string; openedBy?: string },
  ): Promise<Page<ApprovalView>> {
    const after = decodeCursor('approvals', q.cursor);
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>(
      `SELECT * FROM read_approvals WHERE tenant_id = $1 AND status = $2 AND ($3::bigint IS NULL OR requested_position < $3)
          AND ($4::text IS NULL OR session_id = $4)
          AND ($6::text IS NULL OR session_id IN (SELECT session_id FROM read_sessions WHERE tenant_id = $1 AND opened_by = $6))
        ORDER BY requested_position DESC LIMIT $5`,
      [tenantId, q.status, after, q.sessionId ?? null, q.limit + 1, q.openedBy ?? null],
    );
    return page(rows, q.limit, 'approvals', approvalView, (r) => Number(r.requested_position));
  }

  /**
   * Where a live approval feed starts: every pending approval and the change position they are
   * current at, read in one statement (one snapshot), so no change falls between the two.
   */
  async approvalSnapshot(tenantId: string): Promise<{ position: number; pending: ApprovalView[] }> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow & { head: string }>(
      `WITH h AS (SELECT COALESCE(max(updated_position), 0) AS head FROM read_approvals WHERE tenant_id = $1)
       SELECT h.head::text AS head, a.* FROM h LEFT JOIN read_approvals a
           ON a.tenant_id = $1 AND a.status = 'pending' AND a.updated_position <= h.head
        ORDER BY a.updated_position`,
      [tenantId],
    );
    return { position: Number(rows[0].head), pending: rows.filter((r) => r.approval_id !== null).map(approvalView) };
  }

  /** Approvals of the tenant changed after `after` (a change position), oldest change first. */
  async approvalChanges(tenantId: string, after: number, limit = 500): Promise<ApprovalView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>(
      'SELECT * FROM read_approvals WHERE tenant_id = $1 AND updated_position > $2 ORDER BY updated_position LIMIT $3',
      [tenantId, after, limit],
    );
    return rows.map(approvalView);
  }
}
