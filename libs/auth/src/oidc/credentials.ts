import type { Principal } from '../principal';
import type { VerifiedKeys } from '../verified-keys';
import { looksLikeJwt, type AccessTokens } from './access-tokens';

/**
 * A presented bearer credential, whichever kind: a hub API key (`hub_…`), or an identity
 * provider's JWT access token (issue 24). One place decides, so the HTTP guard and the WebSocket
 * upgrade accept exactly the same things.
 */
export class Credentials {
  constructor(
    private readonly keys: Pick<VerifiedKeys, 'verify'>,
    private readonly tokens: Pick<AccessTokens, 'verify'>,
  ) {}

  /**
   * The principal of a key or access token; null for no credential or a bad or revoked key.
   * An access token that is not accepted throws, saying why (UNAUTHENTICATED, or FORBIDDEN when
   * the person's groups map to no role).
   */
  async verify(presented: string | undefined | null): Promise<Principal | null> {
    if (!presented) return null;
    if (!presented.startsWith('hub_') && looksLikeJwt(presented)) return this.tokens.verify(presented);
    return this.keys.verify(presented);
  }
}
