import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { asSystem, asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { isRole, type Role } from '../roles';

/** A console session as the hub keeps it (never its secret: only the secret's hash is stored). */
export interface PersonSession {
  id: string;
  tenantId: string;
  csrfToken: string;
  iss: string;
  sub: string;
  name: string | null;
  email: string | null;
  role: Role;
  /** The person's groups as the provider gave them at sign-in or the last refresh. */
  groups: string[];
  refreshToken: string | null;
  idToken: string | null;
  expiresAt: Date;
  createdAt: Date;
}

/** A session as the admin API lists it: who, role, when; no token. */
export interface PersonSessionView {
  id: string;
  sub: string;
  name: string | null;
  email: string | null;
  role: Role;
  createdAt: string;
  expiresAt: string;
}

interface SessionRow {
  id: string;
  tenant_id: string;
  secret_hash: string;
  csrf_token: string;
  iss: string;
  sub: string;
  name: string | null;
  email: string | null;
  role: string;
  groups: string[];
  refresh_token: string | null;
  id_token: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, tenant_id, secret_hash, csrf_token, iss, sub, name, email, role, groups, refresh_token, id_token, expires_at, revoked_at, created_at';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const sha256 = (v: string) => createHash('sha256').update(v).digest();
const token = () => randomBytes(32).toString('base64url');

function fromRow(r: SessionRow): PersonSession {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    csrfToken: r.csrf_token,
    iss: r.iss,
    sub: r.sub,
    name: r.name,
    email: r.email,
    role: isRole(r.role) ? r.role : 'viewer',
    groups: r.groups,
    refreshToken: r.refresh_token,
    idToken: r.id_token,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
  };
}

export interface NewPersonSession {
  iss: string;
  sub: string;
  name?: string;
  email?: string;
  role: Role;
  groups: readonly string[];
  refreshToken?: string;
  idToken?: string;
  expiresAt: Date;
}

/** What a presented session cookie is: a live session, one whose time is up (refresh it), or nothing the hub knows. */
export type FoundSession = { state: 'live'; session: PersonSession } | { state: 'expired'; session: PersonSession } | { state: 'none' };

/**
 * People's console sessions (`person_sessions`). The cookie is `<id>.<secret>`: the id finds the
 * row (before its tenant is known: system work `identity`), the secret's SHA-256 must match in
 * constant time. An admin's revocation sets `revoked_at`, and the next request is refused: every
 * cookie-authenticated request reads its row (one primary-key read).
 */
export class PersonSessions {
  constructor(private readonly pool: Pool) {}

  /** A new session; answers its cookie value (shown to nobody else, never stored). */
  async create(tenantId: string, s: NewPersonSession): Promise<{ cookie: string; session: PersonSession }> {
    const id = randomUUID();
    const secret = token();
    const { rows } = await asTenant(this.pool, tenantId).query<SessionRow>(
      `INSERT INTO person_sessions (id, tenant_id, secret_hash, csrf_token, iss, sub, name, email, role, refresh_token, id_token, expires_at, groups)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
      [
        id,
        tenantId,
        sha256(secret).toString('hex'),
        token(),
        s.iss,
        s.sub,
        s.name ?? null,
        s.email ?? null,
        s.role,
        s.refreshToken ?? null,
        s.idToken ?? null,
        s.expiresAt,
        [...s.groups],
      ],
    );
    return { cookie: `${id}.${secret}`, session: fromRow(rows[0]) };
  }

  /** The session a cookie names, if its secret matches and it is not revoked. */
  async find(cookie: string | undefined, now: Date = new Date()): Promise<FoundSession> {
    const dot = cookie?.indexOf('.') ?? -1;
    if (!cookie || dot < 0 || !UUID.test(cookie.slice(0, dot))) return { state: 'none' };
    const { rows } = await asSystem(this.pool, 'identity').query<SessionRow>(`SELECT ${COLUMNS} FROM person_sessions WHERE id = $1`, [cookie.slice(0, dot)]);
    const row = rows[0];
    if (!row || row.revoked_at !== null) return { state: 'none' };
    const a = sha256(cookie.slice(dot + 1));
    const b = Buffer.from(row.secret_hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { state: 'none' };
    return { state: row.expires_at > now ? 'live' : 'expired', session: fromRow(row) };
  }

  /** After a refresh at the provider: the groups and role read again, a new end, the provider's new tokens. */
  async extend(
    s: PersonSession,
    change: { role: Role; groups: readonly string[]; expiresAt: Date; refreshToken?: string; idToken?: string; name?: string; email?: string },
  ): Promise<PersonSession> {
    const { rows } = await asTenant(this.pool, s.tenantId).query<SessionRow>(
      `UPDATE person_sessions SET role = $3, expires_at = $4, refresh_token = COALESCE($5, refresh_token), id_token = COALESCE($6, id_token), name = COALESCE($7, name), email = COALESCE($8, email), groups = $9
       WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [
        s.tenantId,
        s.id,
        change.role,
        change.expiresAt,
        change.refreshToken ?? null,
        change.idToken ?? null,
        change.name ?? null,
        change.email ?? null,
        [...change.groups],
      ],
    );
    if (!rows[0]) throw new Error('the session was revoked meanwhile');
    return fromRow(rows[0]);
  }

  /** Ends one session (sign-out, or a refresh that found no role any more). */
  async end(s: Pick<PersonSession, 'tenantId' | 'id'>, now: Date = new Date()): Promise<void> {
    await asTenant(this.pool, s.tenantId).query('UPDATE person_sessions SET revoked_at = $3 WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL', [
      s.tenantId,
      s.id,
      now,
    ]);
  }

  /** An admin ends a person's sessions (`sub`), or everyone's (null); answers how many were live. */
  async revoke(tenantId: string, sub: string | null, now: Date = new Date()): Promise<number> {
    const { rowCount } = await asTenant(this.pool, tenantId).query(
      'UPDATE person_sessions SET revoked_at = $3 WHERE tenant_id = $1 AND ($2::text IS NULL OR sub = $2) AND revoked_at IS NULL',
      [tenantId, sub, now],
    );
    return rowCount ?? 0;
  }

  /** The tenant's sessions not revoked (a person's, with `sub`), newest first. */
  async list(tenantId: string, sub: string | null): Promise<PersonSessionView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<SessionRow>(
      `SELECT ${COLUMNS} FROM person_sessions WHERE tenant_id = $1 AND ($2::text IS NULL OR sub = $2) AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 500`,
      [tenantId, sub],
    );
    return rows.map((r) => ({
      id: r.id,
      sub: r.sub,
      name: r.name,
      email: r.email,
      role: isRole(r.role) ? r.role : 'viewer',
      createdAt: r.created_at.toISOString(),
      expiresAt: r.expires_at.toISOString(),
    }));
  }

  /**
   * Which of `ids` are not revoked (open event streams re-check with this: a session merely due
   * for its refresh keeps its streams; a revoked or signed-out one loses them).
   */
  async liveIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await asSystem(this.pool, 'identity').query<{ id: string }>(
      'SELECT id FROM person_sessions WHERE id = ANY($1::uuid[]) AND revoked_at IS NULL',
      [[...new Set(ids)]],
    );
    return new Set(rows.map((r) => r.id));
  }
}
