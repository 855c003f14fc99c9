import { z } from 'zod';
import { defineEvent } from './define-event';

/**
 * Sign-in with the tenant's identity provider (issue 24): its settings as an admin set them
 * (never the client secret: only whether there is one), its removal, and an admin's revocation
 * of a person's console sessions.
 */
export const IdentityProviderSet = defineEvent('IdentityProviderSet', {
  issuer: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  groupRoles: z.record(z.string(), z.string()),
  allowedDomains: z.array(z.string()),
  apiKeyConsole: z.boolean(),
});
export type IdentityProviderSet = z.infer<typeof IdentityProviderSet>;

export const IdentityProviderRemoved = defineEvent('IdentityProviderRemoved', { issuer: z.string() });
export type IdentityProviderRemoved = z.infer<typeof IdentityProviderRemoved>;

/** A person's console sessions were ended by an admin (`sub` null: every person's); `count` of them were live. */
export const PersonSessionsRevoked = defineEvent('PersonSessionsRevoked', { sub: z.string().nullable(), count: z.number().int().nonnegative() });
export type PersonSessionsRevoked = z.infer<typeof PersonSessionsRevoked>;

export const IDENTITY_ADMIN_EVENTS = [IdentityProviderSet, IdentityProviderRemoved, PersonSessionsRevoked] as const;
