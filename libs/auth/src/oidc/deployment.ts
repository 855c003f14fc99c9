import { isRole, type Role } from '../roles';
import type { IdentityProvider } from './provider';

/** The deployment-wide provider's settings (`HUB_OIDC_*`), as ingress reads them. */
export interface DeploymentOidcSettings {
  issuer?: string;
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  audience?: string;
  name: string;
  /** Space-separated. */
  scopes: string;
  groupsClaim: string;
  /** `group=role,group=role`. */
  groupRoles?: string;
  /** Comma-separated. */
  allowedDomains?: string;
  apiKeyConsole: boolean;
}

/** The deployment's provider, or undefined when no issuer is set; a half-set provider is a boot error, in plain words. */
export function deploymentProvider(s: DeploymentOidcSettings): IdentityProvider | undefined {
  if (s.issuer === undefined) return undefined;
  const missing = [
    s.tenantId === undefined && 'HUB_OIDC_TENANT',
    s.clientId === undefined && 'HUB_OIDC_CLIENT_ID',
    s.groupRoles === undefined && 'HUB_OIDC_GROUP_ROLES',
  ].filter(Boolean);
  if (missing.length > 0) throw new Error(`HUB_OIDC_ISSUER is set, so ${missing.join(', ')} must be too`);
  const groupRoles: Record<string, Role> = {};
  for (const pair of (s.groupRoles as string).split(',')) {
    const [group, role] = pair.split('=').map((v) => v.trim());
    if (group && isRole(role)) groupRoles[group] = role;
  }
  return {
    tenantId: s.tenantId as string,
    source: 'deployment',
    name: s.name,
    issuer: s.issuer.replace(/\/+$/, ''),
    clientId: s.clientId as string,
    ...(s.clientSecret === undefined ? {} : { clientSecret: s.clientSecret }),
    audience: s.audience ?? (s.clientId as string),
    scopes: s.scopes.split(' ').filter(Boolean),
    groupsClaim: s.groupsClaim,
    groupRoles,
    allowedDomains: (s.allowedDomains ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
    apiKeyConsole: s.apiKeyConsole,
  };
}
