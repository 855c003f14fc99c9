import type { Provider } from '@nestjs/common';
import { AccessTokens, Credentials, IdentityProviders, OidcClients, deploymentProvider } from '@hub/auth';
import type { Pool } from 'pg';
import { INGRESS_CONFIG, PG_POOL, type IngressSettings } from '../hub.providers';
import { KeyChanges } from './key-changes';

/**
 * Sign-in with the tenant's identity provider (issue 24): the providers (each tenant's, and the
 * deployment's from `HUB_OIDC_*`), the relying party's discovery and keys, access-token checks,
 * and `Credentials`, which the HTTP guard and the WebSocket upgrade both verify with.
 */
export const oidcProviders: Provider[] = [
  { provide: IdentityProviders, inject: [PG_POOL, INGRESS_CONFIG], useFactory: (pool: Pool, s: IngressSettings) => new IdentityProviders(pool, deploymentProvider(s.oidc)) },
  { provide: OidcClients, useFactory: () => new OidcClients() },
  { provide: AccessTokens, inject: [IdentityProviders, OidcClients], useFactory: (p: IdentityProviders, c: OidcClients) => new AccessTokens(p, c) },
  { provide: Credentials, inject: [KeyChanges, AccessTokens], useFactory: (keys: KeyChanges, tokens: AccessTokens) => new Credentials(keys.verified, tokens) },
];
