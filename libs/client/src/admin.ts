import type { JsonObject } from './api-types';
import type { HubHttp } from './http';

export type Role = 'admin' | 'operator' | 'approver' | 'viewer' | 'client';

/** A tenant's limits; null or absent: no limit. */
export interface TenantLimits {
  turnsPerMinute?: number | null;
  concurrentTurns?: number | null;
  tokensPerDay?: number | null;
  sessions?: number | null;
  openSockets?: number | null;
  eventBytesPerDay?: number | null;
  retentionDays?: number | null;
}

/**
 * Administration of the key's own tenant (an admin key): keys and limits; and, with the
 * deployment's operator key (HUB_OPERATOR_KEY) as the client's key, tenants.
 */
export class Admin {
  constructor(private readonly http: HubHttp) {}

  createKey(body: {
    name: string;
    role: Role;
    expiresAt?: string;
  }): Promise<{ apiKey: string; prefix: string; name: string; role: Role; expiresAt: string | null }> {
    return this.http.json('POST', '/v1/admin/keys', { body });
  }

  listKeys(): Promise<{ keys: JsonObject[] }> {
    return this.http.json('GET', '/v1/admin/keys');
  }

  revokeKey(prefix: string): Promise<{ prefix: string; revoked: boolean }> {
    return this.http.json('DELETE', `/v1/admin/keys/${encodeURIComponent(prefix)}`);
  }

  limits(): Promise<{ limits: TenantLimits }> {
    return this.http.json('GET', '/v1/admin/limits');
  }

  /** Sets the whole set (what is left out is lifted); in force on every ingress within 2 s. */
  setLimits(limits: TenantLimits): Promise<{ limits: TenantLimits }> {
    return this.http.json('PUT', '/v1/admin/limits', { body: limits });
  }

  createTenant(name: string): Promise<{ tenantId: string; name: string; apiKey: string; keyPrefix: string }> {
    return this.http.json('POST', '/v1/admin/tenants', { body: { name } });
  }

  listTenants(): Promise<{ tenants: { tenantId: string; name: string; createdAt: string }[] }> {
    return this.http.json('GET', '/v1/admin/tenants');
  }
}
