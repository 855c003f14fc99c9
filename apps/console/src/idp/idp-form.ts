/**
 * Pure: the identity provider form (issue 24's `PUT /v1/admin/idp`) from what an admin typed.
 * Lists are typed as text: scopes and domains separated by spaces or commas, group mappings one
 * `group = role` a line.
 */

/** What `GET /v1/admin/idp` shows of a provider (libs/auth providerView): never its secret. */
export interface ProviderView {
  name: string;
  issuer: string;
  clientId: string;
  hasClientSecret: boolean;
  audience: string;
  scopes: string[];
  groupsClaim: string;
  groupRoles: Record<string, string>;
  allowedDomains: string[];
  apiKeyConsole: boolean;
  /** `tenant`: set by the tenant's admin; `deployment`: by the deployment's settings (not removable here). */
  source: 'tenant' | 'deployment';
}

export interface ProviderDraft {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  audience: string;
  scopes: string;
  groupsClaim: string;
  groupRoles: string;
  allowedDomains: string;
  apiKeyConsole: boolean;
}

export const EMPTY_DRAFT: ProviderDraft = {
  name: '',
  issuer: '',
  clientId: '',
  clientSecret: '',
  audience: '',
  scopes: 'openid profile email',
  groupsClaim: 'groups',
  groupRoles: '',
  allowedDomains: '',
  apiKeyConsole: true,
};

/** The form filled with a provider's settings (the secret left empty: empty keeps the stored one). */
export function draftOf(p: ProviderView): ProviderDraft {
  return {
    name: p.name,
    issuer: p.issuer,
    clientId: p.clientId,
    clientSecret: '',
    audience: p.audience === p.clientId ? '' : p.audience,
    scopes: p.scopes.join(' '),
    groupsClaim: p.groupsClaim,
    groupRoles: Object.entries(p.groupRoles)
      .map(([g, r]) => `${g} = ${r}`)
      .join('\n'),
    allowedDomains: p.allowedDomains.join(' '),
    apiKeyConsole: p.apiKeyConsole,
  };
}

const words = (s: string) => s.split(/[\s,]+/).filter(Boolean);

/**
 * The body of `PUT /v1/admin/idp`, or the line of the group mappings that is not `group = role`.
 * Empty optional fields are left out (the hub's defaults apply); the hub checks the rest.
 */
export function providerBody(d: ProviderDraft): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  const groupRoles: Record<string, string> = {};
  const lines = d.groupRoles.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const eq = line.lastIndexOf('=');
    const group = line.slice(0, Math.max(0, eq)).trim();
    const role = line.slice(eq + 1).trim();
    if (eq < 0 || !group || !role) return { ok: false, message: `Group roles, line ${i + 1}: write it as group = role` };
    groupRoles[group] = role;
  }
  const body: Record<string, unknown> = { issuer: d.issuer.trim(), clientId: d.clientId.trim(), groupRoles, apiKeyConsole: d.apiKeyConsole };
  if (d.name.trim()) body.name = d.name.trim();
  if (d.clientSecret) body.clientSecret = d.clientSecret;
  if (d.audience.trim()) body.audience = d.audience.trim();
  if (words(d.scopes).length) body.scopes = words(d.scopes);
  if (d.groupsClaim.trim()) body.groupsClaim = d.groupsClaim.trim();
  body.allowedDomains = words(d.allowedDomains);
  return { ok: true, body };
}
