import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { setPrismaTenant, type RawExecutor } from '@hub/event-store';
import type { Principal } from './principal';
import { isRole, type Role } from './roles';
import { API_KEY_PREFIX_TEXT, API_KEY_SECRET_TEXT } from '@hub/domain';

/** The tables this service reads and writes (kept narrow so tests can see the contract). */
export interface AuthTables {
  tenant: {
    create(args: { data: { id: string; name: string } }): Promise<{ id: string }>;
    findMany(args: { orderBy: { createdAt: 'asc' } }): Promise<{ id: string; name: string; createdAt: Date }[]>;
    findUnique(args: { where: { id: string } }): Promise<{ id: string } | null>;
  };
  apiKey: {
    create(args: { data: { id: string; tenantId: string; prefix: string; hash: string; name: string; role: Role; expiresAt: Date | null } }): Promise<unknown>;
    findUnique(args: { where: { prefix: string } }): Promise<{
      id: string;
      tenantId: string;
      prefix: string;
      hash: string;
      name: string;
      role: string;
      revokedAt: Date | null;
      expiresAt: Date | null;
    } | null>;
    updateMany(args: { where: { prefix: string; revokedAt: null; tenantId?: string }; data: { revokedAt: Date } }): Promise<{ count: number }>;
    update(args: { where: { id: string }; data: { lastUsedAt: Date } }): Promise<unknown>;
    findMany(args: { where: { tenantId: string }; orderBy: { createdAt: 'asc' } }): Promise<KeyRow[]>;
  };
}

/**
 * The Prisma client (`createPrismaClient(url, systemScope('api-keys'))`): a presented key is
 * found before its tenant is known, so its plain statements are system work, and what concerns
 * one tenant runs in a transaction that acts for that tenant only (row-level security).
 */
export interface AuthDb extends AuthTables {
  $transaction<T>(fn: (tx: AuthTables & RawExecutor) => Promise<T>): Promise<T>;
}

// Keys look like `hub_<12 visible chars>_<43 secret chars>`. The visible prefix (`hub_xxxxxxxxxxxx`)
// is stored in clear to find the row and to revoke; only a SHA-256 of the whole key is stored.
// SHA-256 (not a slow KDF) is right here: the secret part has 256 bits of entropy.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_PATTERN = new RegExp(`^(${API_KEY_PREFIX_TEXT})_(${API_KEY_SECRET_TEXT})$`);

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function randomToken(bytes: number, alphabet = /[^A-Za-z0-9]/g): string {
  return randomBytes(bytes).toString('base64url').replace(alphabet, '');
}

interface KeyRow {
  prefix: string;
  name: string;
  role: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** A key as listed: never its secret. */
export interface KeyInfo {
  prefix: string;
  name: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewKeyOptions {
  role?: Role;
  /** After this the key is refused (and its open sockets closed). */
  expiresAt?: Date | null;
}

/** `last_used_at` is written at most this often per key and process. */
const LAST_USED_EVERY_MS = 60_000;

export interface CreatedTenant {
  tenantId: string;
  apiKey: string;
  keyPrefix: string;
}

/** Tenants and their API keys. */
export class ApiKeyService {
  constructor(private readonly db: AuthDb) {}

  async createTenant(name: string): Promise<CreatedTenant> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200) throw new Error('tenant name must be 1-200 characters');
    const tenantId = randomUUID();
    await this.db.tenant.create({ data: { id: tenantId, name: trimmed } });
    // The tenant's first key administers it (creates the others, with their roles).
    const { apiKey, keyPrefix } = await this.createKey(tenantId, 'default', { role: 'admin' });
    return { tenantId, apiKey, keyPrefix };
  }

  async createKey(
    tenantId: string,
    name: string,
    options: NewKeyOptions = {},
  ): Promise<{ apiKey: string; keyPrefix: string; role: Role; expiresAt: Date | null }> {
    return this.asTenant(tenantId, async (db) => {
      await this.existingTenant(db, tenantId);
      const role = options.role ?? 'operator';
      if (!isRole(role)) throw new Error(`"${String(role).slice(0, 32)}" is not a role (admin, operator, approver, viewer, client)`);
      const expiresAt = options.expiresAt ?? null;
      if (expiresAt !== null && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now())) throw new Error('a key must expire in the future');
      const trimmed = name.trim();
      if (!trimmed || trimmed.length > 200) throw new Error('key name must be 1-200 characters');
      let visible = '';
      while (visible.length < 12) visible += randomToken(12);
      const keyPrefix = `hub_${visible.slice(0, 12)}`;
      const apiKey = `${keyPrefix}_${randomBytes(32).toString('base64url')}`;
      await db.apiKey.create({
        data: { id: randomUUID(), tenantId, prefix: keyPrefix, hash: hashKey(apiKey), name: trimmed, role, expiresAt },
      });
      return { apiKey, keyPrefix, role, expiresAt };
    });
  }

  /** Resolves a presented key to its principal, or null for an unknown, malformed, revoked or expired key. */
  async verify(presented: string | undefined | null, now: Date = new Date()): Promise<Principal | null> {
    return (await this.verifyWithExpiry(presented, now))?.principal ?? null;
  }

  /** {@link verify}, with when the key expires (null: never), for a caller that keeps the answer. */
  async verifyWithExpiry(presented: string | undefined | null, now: Date = new Date()): Promise<{ principal: Principal; expiresAt: Date | null } | null> {
    const m = presented ? KEY_PATTERN.exec(presented) : null;
    if (!m) return null;
    const row = await this.db.apiKey.findUnique({ where: { prefix: m[1] } });
    if (!row || row.revokedAt || (row.expiresAt !== null && row.expiresAt <= now)) return null;
    const a = Buffer.from(hashKey(presented as string), 'hex');
    const b = Buffer.from(row.hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    this.recordUse(row.id, now);
    const principal: Principal = {
      tenantId: row.tenantId,
      keyId: row.id,
      keyPrefix: row.prefix,
      keyName: row.name,
      role: isRole(row.role) ? row.role : 'viewer',
    };
    return { principal, expiresAt: row.expiresAt };
  }

  private readonly touched = new Map<string, number>();

  /** Records the key's use, at most once a minute per key and process, without holding up the request. */
  recordUse(keyId: string, now: Date = new Date()): void {
    const last = this.touched.get(keyId);
    if (last !== undefined && now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.touched.set(keyId, now.getTime());
    void this.db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } }).catch(() => this.touched.delete(keyId));
  }

  /**
   * Revokes by visible prefix (within `tenantId` when given: an admin key's request; without it,
   * the operator's `hub key revoke`, which finds the key in any tenant); true when a live key
   * was revoked.
   */
  async revoke(prefix: string, now: Date = new Date(), tenantId?: string): Promise<boolean> {
    const data = { revokedAt: now };
    const res =
      tenantId === undefined
        ? await this.db.apiKey.updateMany({ where: { prefix, revokedAt: null }, data })
        : await this.asTenant(tenantId, (db) => db.apiKey.updateMany({ where: { prefix, revokedAt: null, tenantId }, data }));
    return res.count > 0;
  }

  /** The tenant a key (by prefix) belongs to, or null. */
  async tenantOfKey(prefix: string): Promise<string | null> {
    return (await this.db.apiKey.findUnique({ where: { prefix } }))?.tenantId ?? null;
  }

  listTenants(): Promise<{ id: string; name: string; createdAt: Date }[]> {
    return this.db.tenant.findMany({ orderBy: { createdAt: 'asc' } });
  }

  /** A tenant's keys without their secrets: prefix (what `revoke` takes), name, role, created, expires, last used, revoked. */
  async listKeys(tenantId: string): Promise<KeyInfo[]> {
    const rows = await this.asTenant(tenantId, async (db) => {
      await this.existingTenant(db, tenantId);
      return db.apiKey.findMany({ where: { tenantId }, orderBy: { createdAt: 'asc' } });
    });
    return rows.map(({ prefix, name, role, createdAt, expiresAt, lastUsedAt, revokedAt }) => ({
      prefix,
      name,
      role: isRole(role) ? role : 'viewer',
      createdAt,
      expiresAt,
      lastUsedAt,
      revokedAt,
    }));
  }

  /**
   * `fn` in one transaction that acts for `tenantId` only (BEGIN, the setting, fn's statements,
   * COMMIT: admin work, off the hot path). A malformed id is refused first, in plain words.
   */
  private asTenant<T>(tenantId: string, fn: (db: AuthTables) => Promise<T>): Promise<T> {
    if (!UUID.test(tenantId)) return Promise.reject(new Error(`"${tenantId.slice(0, 64)}" is not a tenant id (a UUID, as \`tenant list\` prints)`));
    return this.db.$transaction(async (tx) => {
      await setPrismaTenant(tx, tenantId);
      return fn(tx);
    });
  }

  /** Throws a plain message for an id that is not a tenant's (never a database error's text). */
  private async existingTenant(db: AuthTables, tenantId: string): Promise<void> {
    if (!(await db.tenant.findUnique({ where: { id: tenantId } }))) throw new Error(`no tenant ${tenantId}`);
  }
}

/** `Authorization: Bearer KEY` → KEY, else undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return m ? m[1] : undefined;
}
