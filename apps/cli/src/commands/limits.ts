import { ADMIN_STREAM_ID, TenantLimits, limitsOf } from '@hub/domain';
import { EventStore, createPool } from '@hub/event-store';
import { cliAdminMetadata } from './admin-metadata';
import { LIMIT_FLAGS, type LimitFlag } from './limit-flags';

/**
 * `hub tenant limits TENANT_ID [--turns-per-minute N] [--concurrent-turns N] [--tokens-per-day N]
 * [--sessions N] [--open-sockets N] [--event-bytes-per-day N] [--retention-days N]`: without flags prints the tenant's limits; with flags sets the ones given
 * (`none` lifts one) and keeps the others, recorded as `TenantLimitsSet` by the CLI's operator.
 * Every ingress applies a change within 2 s.
 */
export async function tenantLimits(databaseUrl: string, tenantId: string, flags: Partial<Record<LimitFlag, string>>): Promise<TenantLimits> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    const store = new EventStore(pool);
    const { events } = await store.readStream(tenantId, ADMIN_STREAM_ID);
    if (events.length === 0) throw new Error(`no tenant ${tenantId} (or it predates the admin stream)`);
    const current = limitsOf(events);
    const given = Object.entries(flags).filter(([, v]) => v !== undefined) as [LimitFlag, string][];
    if (given.length === 0) return current;
    const next = { ...current };
    for (const [flag, raw] of given) {
      const value = raw === 'none' ? null : Number(raw);
      if (value !== null && !(Number.isInteger(value) && value > 0))
        throw new Error(`--${flag} needs a whole number above 0, or none (got "${raw.slice(0, 20)}")`);
      next[LIMIT_FLAGS[flag]] = value;
    }
    const limits = TenantLimits.parse(next);
    await store.append(tenantId, ADMIN_STREAM_ID, [{ type: 'TenantLimitsSet', data: { limits }, metadata: cliAdminMetadata() }], { expectedVersion: 'any' });
    return limits;
  } finally {
    await pool.end();
  }
}
