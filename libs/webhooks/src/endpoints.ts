import { randomUUID } from 'node:crypto';
import { asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { newLinkKey } from './links';
import { liveSecrets, newSecret, type SigningSecret } from './signing';

/** An endpoint as the API shows it (never a secret). */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  /** Until when the previous secret still signs (a rotation's overlap), or null. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  secrets: SigningSecret[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, url, events, description, enabled, disabled_reason, failing_since, secrets, created_at, updated_at';

function view(r: EndpointRow, now = new Date()): EndpointView {
  const previous = liveSecrets(r.secrets, now).find((s) => s.expiresAt !== null);
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since?.toISOString() ?? null,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A tenant's webhook endpoints and settings, each statement under the tenant's scope (row-level
 * security). Another tenant's endpoint is null (not found), exactly like one that does not exist.
 */
export class WebhookEndpoints {
  constructor(private readonly pool: Pool) {}

  private db(tenantId: string) {
    return asTenant(this.pool, tenantId);
  }

  async create(tenantId: string, input: { url: string; events: string[]; description: string | null }): Promise<{ endpoint: EndpointView; secret: string }> {
    const secret = newSecret();
    const secrets: SigningSecret[] = [{ secret, expiresAt: null }];
    await this.ensureSettings(tenantId);
    const { rows } = await this.db(tenantId).query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secrets) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [randomUUID(), tenantId, input.url, input.events, input.description, JSON.stringify(secrets)],
    );
    return { endpoint: view(rows[0]), secret };
  }

  async list(tenantId: string): Promise<EndpointView[]> {
    const { rows } = await this.db(tenantId).query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id`, [
      tenantId,
    ]);
    return rows.map((r) => view(r));
  }

  async get(tenantId: string, id: string): Promise<EndpointView | null> {
    if (!UUID.test(id)) return null;
    const { rows } = await this.db(tenantId).query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    if (!rows[0]) return null;
    return view(rows[0]);
  }

  /** Changes what `patch` names. Enabling clears the reason it was disabled and its failing streak. */
  async update(tenantId: string, id: string, patch: EndpointPatch): Promise<EndpointView | null> {
    if (!UUID.test(id)) return null;
    const { rows } = await this.db(tenantId).query<EndpointRow>(
      `UPDATE webhook_endpoints SET
         url = COALESCE($3, url), events = COALESCE($4, events),
         description = CASE WHEN $5::boolean THEN $6 ELSE description END,
         enabled = COALESCE($7, enabled),
         disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason WHEN $7 THEN NULL ELSE 'disabled by an admin' END,
         failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
         updated_at = now()
       WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [tenantId, id, patch.url ?? null, patch.events ?? null, patch.description !== undefined, patch.description ?? null, patch.enabled ?? null],
    );
    if (!rows[0]) return null;
    return view(rows[0]);
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    if (!UUID.test(id)) return false;
    const { rowCount } = await this.db(tenantId).query('DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * A new current secret; the old one keeps signing for `overlapMs` (both signatures on every
   * attempt meanwhile), so receivers can switch without losing a message.
   */
  async rotate(tenantId: string, id: string, overlapMs: number, now = new Date()): Promise<{ secret: string; previousSecretExpiresAt: string } | null> {
    if (!UUID.test(id)) return null;
    const { rows } = await this.db(tenantId).query<{ secrets: SigningSecret[] }>('SELECT secrets FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    if (!rows[0]) return null;
    const until = new Date(now.getTime() + overlapMs).toISOString();
    const secret = newSecret();
    // The new one first; the old current one until the overlap ends; older ones that still sign keep their end.
    const kept = liveSecrets(rows[0].secrets, now).map((s) => (s.expiresAt === null ? { secret: s.secret, expiresAt: until } : s));
    const secrets = [{ secret, expiresAt: null }, ...kept];
    await this.db(tenantId).query('UPDATE webhook_endpoints SET secrets = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
      JSON.stringify(secrets),
    ]);
    return { secret, previousSecretExpiresAt: until };
  }

  /** Whether the tenant's approval.requested deliveries carry a decision link (default on). */
  async approvalLinks(tenantId: string): Promise<boolean> {
    const { rows } = await this.db(tenantId).query<{ approval_links: boolean }>('SELECT approval_links FROM webhook_tenant_settings WHERE tenant_id = $1', [
      tenantId,
    ]);
    return rows[0]?.approval_links ?? true;
  }

  async setApprovalLinks(tenantId: string, on: boolean): Promise<void> {
    await this.ensureSettings(tenantId);
    await this.db(tenantId).query('UPDATE webhook_tenant_settings SET approval_links = $2 WHERE tenant_id = $1', [tenantId, on]);
  }

  /** The link key and whether links are on, or null when the tenant never made an endpoint (reads only: a forged token's tenant makes no row). */
  async linkSettings(tenantId: string): Promise<{ key: string; on: boolean } | null> {
    const { rows } = await this.db(tenantId).query<{ link_key: string; approval_links: boolean }>(
      'SELECT link_key, approval_links FROM webhook_tenant_settings WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0] ? { key: rows[0].link_key, on: rows[0].approval_links } : null;
  }

  private async ensureSettings(tenantId: string): Promise<void> {
    await this.db(tenantId).query('INSERT INTO webhook_tenant_settings (tenant_id, link_key) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING', [
      tenantId,
      newLinkKey(),
    ]);
  }
}
