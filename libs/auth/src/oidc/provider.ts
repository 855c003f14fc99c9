import { z } from 'zod';
import { ROLES, type Role } from '../roles';

/** Loopback hosts, the only ones an issuer may be reached over plain http (a test's provider, a laptop's). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An issuer URL: https, or http on a loopback address; no query or fragment (OpenID Connect Discovery 1.0, section 2). */
export const IssuerUrl = z
  .url()
  .max(500)
  .refine((v) => {
    const u = new URL(v);
    return (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname))) && !u.search && !u.hash;
  }, 'an https URL (http only on localhost) without query or fragment')
  .transform((v) => v.replace(/\/+$/, ''));

/**
 * What an admin sets for the tenant's identity provider (`PUT /v1/admin/idp`, `hub idp set`).
 * `clientSecret` absent on a change keeps the stored one; a public client (PKCE only) has none.
 */
export const IdentityProviderInput = z
  .object({
    /** What the console's button says: "Sign in with <name>". */
    name: z.string().trim().min(1).max(100).default('your identity provider'),
    issuer: IssuerUrl,
    clientId: z.string().min(1).max(500),
    clientSecret: z.string().min(1).max(2000).optional(),
    /** The `aud` the provider's access tokens carry for this hub; absent: the client id. */
    audience: z.string().min(1).max(500).optional(),
    scopes: z
      .array(z.string().regex(/^[\x21-\x7e]+$/, 'a scope has no spaces'))
      .min(1)
      .max(50)
      .default(['openid', 'profile', 'email']),
    /** The claim (of the ID token, the userinfo, or the access token) that lists the person's groups. */
    groupsClaim: z.string().min(1).max(200).default('groups'),
    /** Group → role. A person in no mapped group is refused (strict); in several, the strongest role wins. */
    groupRoles: z.record(z.string().min(1).max(500), z.enum(ROLES)).refine((m) => Object.keys(m).length > 0, 'map at least one group to a role'),
    /** Email domains a person must belong to (empty: any). */
    allowedDomains: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'a domain like example.com'),
      )
      .max(100)
      .default([]),
    /** Whether the console still offers sign-in with an API key in this tenant. */
    apiKeyConsole: z.boolean().default(true),
  })
  .strict();
export type IdentityProviderInput = z.infer<typeof IdentityProviderInput>;

/** A tenant's identity provider as the hub uses it: set by its admin (`tenant`) or by the deployment's settings (`deployment`). */
export interface IdentityProvider extends Omit<IdentityProviderInput, 'audience'> {
  tenantId: string;
  source: 'tenant' | 'deployment';
  audience: string;
}

/** A provider as the API shows it: whether it has a secret, never the secret. */
export function providerView(p: IdentityProvider) {
  const { clientSecret, tenantId: _tenant, ...rest } = p;
  return { ...rest, hasClientSecret: clientSecret !== undefined };
}

/** The groups a set of claims lists under `claim`: an array of strings, or one space- or comma-separated string. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/**
 * The role a person's groups give: the strongest mapped one (in the order of `ROLES`: admin,
 * operator, approver, viewer, client), or null when no group is mapped (strict: refused).
 */
export function roleOfGroups(groups: readonly string[], groupRoles: Readonly<Record<string, Role>>): Role | null {
  const mapped = new Set(groups.flatMap((g) => (Object.hasOwn(groupRoles, g) ? [groupRoles[g]] : [])));
  return ROLES.find((r) => mapped.has(r)) ?? null;
}

/** Whether `email` is in one of `domains` (any email, or none, when the list is empty). */
export function emailAllowed(email: string | undefined, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  const at = email?.lastIndexOf('@') ?? -1;
  return email !== undefined && at > 0 && domains.includes(email.slice(at + 1).toLowerCase());
}

/** Why a person is refused, in words they can act on. */
export function noRoleMessage(groups: readonly string[], provider: Pick<IdentityProvider, 'groupRoles' | 'groupsClaim'>): string {
  const have = groups.length === 0 ? `no groups (claim "${provider.groupsClaim}")` : `groups ${groups.slice(0, 20).join(', ')}`;
  return `you are signed in, but your ${have} map to no role in this hub; ask an admin to add you to one of: ${Object.keys(provider.groupRoles).join(', ')}`;
}
