import type { Provider } from '@nestjs/common';
import { AccessTokens, ConsoleSignIn, Credentials, IdentityProviders, OidcClients, PersonSessions, deploymentProvider } from '@hub/auth';
import type { Pool } from 'pg';
import { INGRESS_CONFIG, PG_POOL, type IngressSettings } from '../hub.providers';
import { KeyChanges } from './key-changes';
import { OidcAdminController } from './oidc-admin.controller';
import { OidcAuthController } from './oidc-auth.controller';
import { MAX_SESSION_SECONDS } from './oidc-cookies';
import { SessionCookieAuth } from './oidc-session-auth';

/**
 * Sign-in with the tenant's identity provider (issue 24): the providers (each tenant's, and the
 * deployment's from `HUB_OIDC_*`), the relying party's discovery and keys, access-token checks,
 * `Credentials`, which the HTTP guard and the WebSocket upgrade both verify with, and the console's
 * sign-in and sessions.
 */
export const oidcProviders: Provider[] = [
  {
    provide: IdentityProviders,
    inject: [PG_POOL, INGRESS_CONFIG],
    useFactory: (pool: Pool, s: IngressSettings) => new IdentityProviders(pool, deploymentProvider(s.oidc)),
  },
  { provide: OidcClients, useFactory: () => new OidcClients() },
  { provide: AccessTokens, inject: [IdentityProviders, OidcClients], useFactory: (p: IdentityProviders, c: OidcClients) => new AccessTokens(p, c) },
  { provide: Credentials, inject: [KeyChanges, AccessTokens], useFactory: (keys: KeyChanges, tokens: AccessTokens) => new Credentials(keys.verified, tokens) },
  { provide: PersonSessions, inject: [PG_POOL], useFactory: (pool: Pool) => new PersonSessions(pool) },
  {
    provide: ConsoleSignIn,
    inject: [IdentityProviders, OidcClients, PersonSessions, INGRESS_CONFIG],
    useFactory: (p: IdentityProviders, c: OidcClients, s: PersonSessions, settings: IngressSettings) =>
      new ConsoleSignIn(p, c, s, { sessionSeconds: settings.oidc.sessionSeconds, maxSessionSeconds: MAX_SESSION_SECONDS }),
  },
  SessionCookieAuth,
];

/** The console's sign-in routes and the admin's provider and sessions routes. */
export const oidcControllers = [OidcAuthController, OidcAdminController];
