import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import { DomainError } from '@hub/domain';
import { personPrincipal, type Principal } from '../principal';
import type { OidcClients } from './clients';
import type { IdentityProviders } from './identity-providers';
import { emailAllowed, groupsOf, noRoleMessage, roleOfGroups, type IdentityProvider } from './provider';

/** Whether a presented bearer credential is a JWT (three base64url parts) rather than a hub key. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

/** Seconds of clock difference tolerated between the provider and the hub. */
const CLOCK_TOLERANCE_S = 5;

/**
 * The identity providers' JWT access tokens (RFC 9068), accepted as bearer tokens on the HTTP API
 * and the WebSockets: the issuer names the candidate tenants, the audience picks one, the
 * signature is checked against the provider's published keys, then expiry, and the person's
 * groups (the token's groups claim) give the role, strictly, and travel with the principal (an
 * approval rule may name them). Every refusal says why.
 */
export class AccessTokens {
  constructor(
    private readonly providers: Pick<IdentityProviders, 'forIssuer'>,
    private readonly clients: OidcClients,
  ) {}

  /** The person's principal; throws UNAUTHENTICATED (not a token this hub trusts) or FORBIDDEN (trusted, but no role). */
  async verify(token: string): Promise<Principal> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new DomainError('UNAUTHENTICATED', 'the bearer token is neither an API key nor a JWT access token');
    }
    const iss = typeof unverified.iss === 'string' ? unverified.iss.replace(/\/+$/, '') : '';
    const candidates = iss ? await this.providers.forIssuer(iss) : [];
    if (candidates.length === 0)
      throw new DomainError('UNAUTHENTICATED', `access tokens of issuer "${iss.slice(0, 200)}" are not accepted here: no tenant signs in with it`);
    const audiences = typeof unverified.aud === 'string' ? [unverified.aud] : (unverified.aud ?? []);
    const provider = candidates.find((p) => audiences.includes(p.audience));
    if (!provider)
      throw new DomainError(
        'UNAUTHENTICATED',
        `the access token's audience (${audiences.join(', ').slice(0, 200) || 'none'}) is not this hub's (${candidates.map((p) => p.audience).join(', ')})`,
      );
    const claims = await this.verified(token, provider, unverified.iss as string);
    return this.principal(provider, claims);
  }

  private async verified(token: string, p: IdentityProvider, issuerAsSent: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(token, await this.clients.keys(p), {
        issuer: issuerAsSent,
        audience: p.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch (e) {
      if (e instanceof errors.JWTExpired) throw new DomainError('UNAUTHENTICATED', 'the access token has expired: get a new one from the identity provider');
      if (e instanceof errors.JOSEError) throw new DomainError('UNAUTHENTICATED', `the access token does not verify: ${e.message}`);
      throw e;
    }
  }

  private principal(p: IdentityProvider, claims: JWTPayload): Principal {
    const email = typeof claims['email'] === 'string' ? claims['email'] : undefined;
    if (!emailAllowed(email, p.allowedDomains))
      throw new DomainError('FORBIDDEN', `only people with an email at ${p.allowedDomains.join(', ')} may sign in here`);
    const groups = groupsOf(claims, p.groupsClaim);
    const role = roleOfGroups(groups, p.groupRoles);
    if (role === null) throw new DomainError('FORBIDDEN', noRoleMessage(groups, p));
    const name = typeof claims['name'] === 'string' ? claims['name'] : undefined;
    return personPrincipal(p.tenantId, role, {
      iss: p.issuer,
      sub: claims.sub as string,
      ...(name === undefined ? {} : { name }),
      ...(email === undefined ? {} : { email }),
      groups,
      expiresAt: (claims.exp as number) * 1000,
    });
  }
}
