import { asSystem, asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { isRole, type Role } from '../roles';
import type { IdentityProvider, IdentityProviderInput } from './provider';

interface ProviderRow {
  tenant_id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  audience: string | null;
  scopes: string[];
  groups_claim: string;
  group_roles: Record<string, string>;
  allowed_domains: string[];
  api_key_console: boolean;
}

const COLUMNS = 'tenant_id, name, issuer, client_id, client_secret, audience, scopes, groups_claim, group_roles, allowed_domains, api_key_console';

/** How long a provider looked up by issuer is kept: a change reaches every ingress within this. */
const KEPT_MS = 5_000;

function fromRow(r: ProviderRow): IdentityProvider {
  const groupRoles: Record<string, Role> = {};
  for (const [g, role] of Object.entries(r.group_roles)) if (isRole(role)) groupRoles[g] = role;
  return {
    tenantId: r.tenant_id,
    source: 'tenant',
    name: r.name,
    issuer: r.issuer,
    clientId: r.client_id,
    ...(r.client_secret === null ? {} : { clientSecret: r.client_secret }),
    audience: r.audience ?? r.client_id,
    scopes: r.scopes,
    groupsClaim: r.groups_claim,
    groupRoles,
    allowedDomains: r.allowed_domains,
    apiKeyConsole: r.api_key_console,
  };
}

/**
 * Each tenant's identity provider: the one its admin set (a row of `identity_providers`, under
 * row-level security), else the deployment's (from `HUB_OIDC_*`, for the tenant it names). A
 * tenant's own row wins over the deployment's.
 */
export class IdentityProviders {
  private readonly byIssuer = new Map<string, { at: number; providers: Promise<IdentityProvider[]> }>();

  constructor(
    private readonly pool: Pool,
    private readonly deployment?: IdentityProvider,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tenant the deployment-wide provider signs people in to, if there is one. */
  deploymentTenant(): string | undefined {
    return this.deployment?.tenantId;
  }

  /** The tenant's provider, or null when it has none. */
  async get(tenantId: string): Promise<IdentityProvider | null> {
    const { rows } = await asTenant(this.pool, tenantId).query<ProviderRow>(`SELECT ${COLUMNS} FROM identity_providers WHERE tenant_id = $1`, [tenantId]);
    if (rows[0]) return fromRow(rows[0]);
    return this.deployment?.tenantId === tenantId ? this.deployment : null;
  }

  /** Sets the tenant's provider; a change without `clientSecret` keeps the stored one. */
  async set(tenantId: string, input: IdentityProviderInput): Promise<IdentityProvider> {
    const { rows } = await asTenant(this.pool, tenantId).query<ProviderRow>(
      `INSERT INTO identity_providers (tenant_id, name, issuer, client_id, client_secret, audience, scopes, groups_claim, group_roles, allowed_domains, api_key_console)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (tenant_id) DO UPDATE SET name = $2, issuer = $3, client_id = $4,
         client_secret = CASE WHEN $5::text IS NULL AND identity_providers.client_id = $4 THEN identity_providers.client_secret ELSE $5 END,
         audience = $6, scopes = $7, groups_claim = $8, group_roles = $9, allowed_domains = $10, api_key_console = $11, updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        tenantId,
        input.name,
        input.issuer,
        input.clientId,
        input.clientSecret ?? null,
        input.audience ?? null,
        input.scopes,
        input.groupsClaim,
        JSON.stringify(input.groupRoles),
        input.allowedDomains,
        input.apiKeyConsole,
      ],
    );
    this.byIssuer.clear();
    return fromRow(rows[0]);
  }

  /** Removes the tenant's own provider (the deployment's, if it names this tenant, applies again); false when it had none. */
  async remove(tenantId: string): Promise<boolean> {
    const { rowCount } = await asTenant(this.pool, tenantId).query('DELETE FROM identity_providers WHERE tenant_id = $1', [tenantId]);
    this.byIssuer.clear();
    return (rowCount ?? 0) > 0;
  }

  /**
   * Every tenant's provider with this issuer (a bearer access token names its issuer before its
   * tenant is known; its audience then picks one), kept {@link KEPT_MS}.
   */
  async forIssuer(issuer: string): Promise<IdentityProvider[]> {
    const kept = this.byIssuer.get(issuer);
    if (kept && this.now() - kept.at < KEPT_MS) return kept.providers;
    const providers = this.readIssuer(issuer);
    if (this.byIssuer.size > 1000) this.byIssuer.clear();
    this.byIssuer.set(issuer, { at: this.now(), providers });
    providers.catch(() => this.byIssuer.delete(issuer));
    return providers;
  }

  private async readIssuer(issuer: string): Promise<IdentityProvider[]> {
    const { rows } = await asSystem(this.pool, 'identity').query<ProviderRow>(`SELECT ${COLUMNS} FROM identity_providers WHERE issuer = $1`, [issuer]);
    const own = rows.map(fromRow);
    const d = this.deployment;
    return d && d.issuer === issuer && !own.some((p) => p.tenantId === d.tenantId) ? [...own, d] : own;
  }
}
