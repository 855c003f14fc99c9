import { isRole, type Role } from '@hub/auth';
import { ADMIN_STREAM_ID, type AdminEvent } from '@hub/domain';
import { EventStore, createPool } from '@hub/event-store';
import { withKeys } from './admin';
import { cliAdminMetadata } from './admin-metadata';

async function recordAdmin(databaseUrl: string, tenantId: string, events: AdminEvent[]): Promise<void> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    const metadata = cliAdminMetadata();
    await new EventStore(pool).append(
      tenantId,
      ADMIN_STREAM_ID,
      events.map((e) => ({ ...e, metadata })),
      { expectedVersion: 'any' },
    );
  } finally {
    await pool.end();
  }
}

/** `--role`: one of the five roles. */
export function roleOption(value: string | undefined): Role | undefined {
  if (value === undefined) return undefined;
  if (!isRole(value)) throw new Error(`--role must be one of admin, operator, approver, viewer, client (got "${value.slice(0, 32)}")`);
  return value;
}

/** `--expires`: an ISO time, or a duration from now (`90m`, `12h`, `30d`). */
export function expiresOption(value: string | undefined, now = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const d = /^(\d+)([mhd])$/.exec(value);
  const at = d ? new Date(now + Number(d[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[d[2] as 'm' | 'h' | 'd']) : new Date(value);
  if (Number.isNaN(at.getTime())) throw new Error(`--expires must be an ISO time or a duration like 30d, 12h, 90m (got "${value.slice(0, 40)}")`);
  return at;
}

export async function tenantCreate(databaseUrl: string, name: string): Promise<{ tenantId: string; apiKey: string; keyPrefix: string }> {
  const created = await withKeys(databaseUrl, (k) => k.createTenant(name));
  await recordAdmin(databaseUrl, created.tenantId, [
    { type: 'TenantCreated', data: { tenantId: created.tenantId, name: name.trim() } },
    { type: 'ApiKeyCreated', data: { keyPrefix: created.keyPrefix, name: 'default', role: 'admin', expiresAt: null } },
  ]);
  return { tenantId: created.tenantId, apiKey: created.apiKey, keyPrefix: created.keyPrefix };
}

export async function keyCreate(databaseUrl: string, tenantId: string, name: string, role?: Role, expiresAt?: Date) {
  const created = await withKeys(databaseUrl, (k) => k.createKey(tenantId, name, { role, expiresAt }));
  const expires = created.expiresAt?.toISOString() ?? null;
  await recordAdmin(databaseUrl, tenantId, [
    { type: 'ApiKeyCreated', data: { keyPrefix: created.keyPrefix, name: name.trim(), role: created.role, expiresAt: expires } },
  ]);
  return { apiKey: created.apiKey, keyPrefix: created.keyPrefix, role: created.role, expiresAt: expires };
}

export async function keyRevoke(databaseUrl: string, prefix: string): Promise<boolean> {
  return withKeys(databaseUrl, async (k) => {
    const tenantId = (await k.tenantOfKey(prefix)) ?? undefined;
    const revoked = await k.revoke(prefix);
    if (revoked && tenantId !== undefined) await recordAdmin(databaseUrl, tenantId, [{ type: 'ApiKeyRevoked', data: { keyPrefix: prefix } }]);
    return revoked;
  });
}
