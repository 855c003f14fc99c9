import * as client from 'openid-client';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { IdentityProvider } from './provider';

interface Discovered {
  config: client.Configuration;
  jwks: JWTVerifyGetKey;
}

/** How long a provider's discovery document is trusted before it is read again. */
const DISCOVERY_KEPT_MS = 10 * 60_000;

/**
 * The relying party's view of each provider (openid-client): its discovery document, read once
 * and kept, and its signing keys (jose's remote key set: fetched when a token names a key it has
 * not seen, so a rotation at the provider needs nothing here). A discovery that failed is tried
 * again at the next use.
 */
export class OidcClients {
  private readonly kept = new Map<string, { at: number; discovered: Promise<Discovered> }>();

  constructor(private readonly now: () => number = Date.now) {}

  async configuration(p: IdentityProvider): Promise<client.Configuration> {
    return (await this.discovered(p)).config;
  }

  async keys(p: IdentityProvider): Promise<JWTVerifyGetKey> {
    return (await this.discovered(p)).jwks;
  }

  private discovered(p: IdentityProvider): Promise<Discovered> {
    const id = `${p.issuer}\u0000${p.clientId}\u0000${p.clientSecret ?? ''}`;
    const kept = this.kept.get(id);
    if (kept && this.now() - kept.at < DISCOVERY_KEPT_MS) return kept.discovered;
    const discovered = this.discover(p);
    if (this.kept.size > 1000) this.kept.clear();
    this.kept.set(id, { at: this.now(), discovered });
    discovered.catch(() => this.kept.delete(id));
    return discovered;
  }

  private async discover(p: IdentityProvider): Promise<Discovered> {
    const insecure = new URL(p.issuer).protocol === 'http:';
    const auth = p.clientSecret === undefined ? client.None() : client.ClientSecretBasic(p.clientSecret);
    const config = await client.discovery(new URL(p.issuer), p.clientId, undefined, auth, insecure ? { execute: [client.allowInsecureRequests] } : undefined);
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error(`${p.issuer} publishes no jwks_uri`);
    return { config, jwks: createRemoteJWKSet(new URL(jwksUri)) };
  }
}
