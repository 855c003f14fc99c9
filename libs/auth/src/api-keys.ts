import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Principal } from './principal';

/** The part of the Prisma client this service uses (kept narrow so tests can see the contract). */
export interface AuthDb {
  tenant: {
    create(args: { data: { id: string; name: string } }): Promise<{ id: string }>;
    findMany(args: { orderBy: { createdAt: 'asc' } }): Promise<{ id: string; name: string; createdAt: Date }[]>;
    findUnique(args: { where: { id: string } }): Promise<{ id: string } | null>;
  };
  apiKey: {
    create(args: { data: { id: string; tenantId: string; prefix: string; hash: string; name: string } }): Promise<unknown>;
    findUnique(args: { where: { prefix: string } }): Promise<{
      id: string;
      tenantId: string;
      prefix: string;
      hash: string;
      name: string;
      revokedAt: Date | null;
    } | null>;
    updateMany(args: { where: { prefix: string; revokedAt: null }; data: { revokedAt: Date } }): Promise<{ count: number }>;
    findMany(args: { where: { tenantId: string }; orderBy: { createdAt: 'asc' } }): Promise<{ prefix: string; name: string; createdAt: Date; revokedAt: Date | null }[]>;
  };
}

// Keys look like `hub_<12 visible chars>_<43 secret chars>`. The visible prefix (`hub_xxxxxxxxxxxx`)
// is stored in clear to find the row and to revoke; only a SHA-256 of the whole key is stored.
// SHA-256 (not a slow KDF) is right here: the secret part has 256 bits of entropy.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_PATTERN = /^(hub_[A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function randomToken(bytes: number, alphabet = /[^A-Za-z0-9]/g): string {
  return randomBytes(bytes).toString('base64url').replace(alphabet, '');
}

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
    const { apiKey, keyPrefix } = await this.createKey(tenantId, 'default');
    return { tenantId, apiKey, keyPrefix };
  }

  async createKey(tenantId: string, name: string): Promise<{ apiKey: string; keyPrefix: string }> {
    await this.existingTenant(tenantId);
    let visible = '';
    while (visible.length < 12) visible += randomToken(12);
    const keyPrefix = `hub_${visible.slice(0, 12)}`;
    const apiKey = `${keyPrefix}_${randomBytes(32).toString('base64url')}`;
    await this.db.apiKey.create({
      data: { id: randomUUID(), tenantId, prefix: keyPrefix, hash: hashKey(apiKey), name },
    });
    return { apiKey, keyPrefix };
  }

  /** Resolves a presented key to its principal, or null for an unknown, malformed or revoked key. */
  async verify(presented: string | undefined | null): Promise<Principal | null> {
    const m = presented ? KEY_PATTERN.exec(presented) : null;
    if (!m) return null;
    const row = await this.db.apiKey.findUnique({ where: { prefix: m[1] } });
    if (!row || row.revokedAt) return null;
    const a = Buffer.from(hashKey(presented as string), 'hex');
    const b = Buffer.from(row.hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    return { tenantId: row.tenantId, keyId: row.id, keyPrefix: row.prefix, keyName: row.name };
  }

  /** Revokes by visible prefix; true when a live key was revoked. */
  async revoke(prefix: string, now: Date = new Date()): Promise<boolean> {
    const res = await this.db.apiKey.updateMany({ where: { prefix, revokedAt: null }, data: { revokedAt: now } });
    return res.count > 0;
  }

  listTenants(): Promise<{ id: string; name: string; createdAt: Date }[]> {
    return this.db.tenant.findMany({ orderBy: { createdAt: 'asc' } });
  }

  /** A tenant's keys without their secrets: prefix (what `revoke` takes), name, created, revoked. */
  async listKeys(tenantId: string): Promise<{ prefix: string; name: string; createdAt: Date; revokedAt: Date | null }[]> {
    await this.existingTenant(tenantId);
    const rows = await this.db.apiKey.findMany({ where: { tenantId }, orderBy: { createdAt: 'asc' } });
    return rows.map(({ prefix, name, createdAt, revokedAt }) => ({ prefix, name, createdAt, revokedAt }));
  }

  /** Throws a plain message for an id that is not a tenant's (never a database error's text). */
  private async existingTenant(tenantId: string): Promise<void> {
    if (!UUID.test(tenantId)) throw new Error(`"${tenantId.slice(0, 64)}" is not a tenant id (a UUID, as \`tenant list\` prints)`);
    if (!(await this.db.tenant.findUnique({ where: { id: tenantId } }))) throw new Error(`no tenant ${tenantId}`);
  }
}

/** `Authorization: Bearer KEY` → KEY, else undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return m ? m[1] : undefined;
}
