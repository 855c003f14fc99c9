import { DomainError } from '@hub/domain';
import { asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { sessionView, turnView, approvalView, type DbRow } from './views';
import type { ApprovalView, SessionView, TurnView } from './views';

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
   * Sessions of the tenant that moved after `after` (a session position), least recent first:
   * a live list's changes. `openedBy` keeps a client key to the sessions it opened.
   */
  async sessionChanges(tenantId: string, after: number, limit = 500, openedBy?: string): Promise<SessionView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>(
      `SELECT * FROM read_sessions WHERE tenant_id = $1 AND last_position > $2 AND ($4::text IS NULL OR opened_by = $4)
        ORDER BY last_position LIMIT $3`,
      [tenantId, after, limit, openedBy ?? null],
    );
    return rows.map(sessionView);
  }

  /** The newest session position of the tenant (0 without sessions): where a live list starts. */
  async sessionHead(tenantId: string): Promise<number> {
    const { rows } = await asTenant(this.pool, tenantId).query<{ head: string }>('SELECT COALESCE(max(last_position), 0)::text AS head FROM read_sessions WHERE tenant_id = $1', [tenantId]);
    return Number(rows[0].head);
  }

  async session(tenantId: string, sessionId: string): Promise<SessionView | null> {
    const { rows } = await asTenant(this.pool, tenantId).query<DbRow>('SELECT * FROM read_sessions WHERE tenant_id = $1 AND session_id = $2', [tenantId, sessionId]);
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
  async approvals(tenantId: string, q: { status: 'pending' | 'resolved'; limit: number; cursor?: string; sessionId?: string; openedBy?: string }): Promise<Page<ApprovalView>> {
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
