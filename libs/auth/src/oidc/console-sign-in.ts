import * as client from 'openid-client';
import { DomainError } from '@hub/domain';
import type { Role } from '../roles';
import type { OidcClients } from './clients';
import type { IdentityProviders } from './identity-providers';
import type { PersonSession, PersonSessions } from './person-sessions';
import { emailAllowed, groupsOf, noRoleMessage, roleOfGroups, type IdentityProvider } from './provider';

/** What the browser holds between the redirect to the provider and the callback (an HttpOnly cookie for this path only). */
export interface SignInFlow {
  tenantId: string;
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
}

export interface ConsoleSignInOptions {
  /** How long a session lasts before it is refreshed at the provider (and the role read again). */
  sessionSeconds: number;
  /** The longest a session is refreshed for before the person signs in again. */
  maxSessionSeconds: number;
  now?: () => number;
}

/** An openid-client error in words: its message and, when it has one, the check that failed (its cause). */
function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? e.cause.message : typeof e.cause === 'string' ? e.cause : '';
  return cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message;
}

/** Where the console may send a person after sign-in: its own pages only (never another site). */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/console(\/[^\\]*)?$/.test(value) && !value.startsWith('//') ? value : '/console/';
}

/**
 * The console's sign-in with the tenant's identity provider (openid-client as the relying party):
 * the authorization code flow with PKCE (S256), `state` and `nonce`; the person's groups, and their
 * role from them, strictly, at every sign-in and every refresh; the session kept by `PersonSessions`.
 */
export class ConsoleSignIn {
  private readonly now: () => number;

  constructor(
    private readonly providers: IdentityProviders,
    private readonly clients: OidcClients,
    private readonly sessions: PersonSessions,
    private readonly opts: ConsoleSignInOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** The provider a tenant signs in with (the deployment's when no tenant is named), or NOT_FOUND. */
  async providerOf(tenantId: string | undefined): Promise<IdentityProvider> {
    const id = tenantId ?? this.providers.deploymentTenant();
    const p = id === undefined ? null : await this.providers.get(id).catch(() => null);
    if (!p)
      throw new DomainError(
        'INVALID_COMMAND',
        tenantId
          ? 'this tenant has no identity provider: sign in with an API key'
          : 'name the tenant (?tenant=<id>): this hub has no deployment-wide identity provider',
      );
    return p;
  }

  /** The provider's authorization URL, and what the browser must bring back to the callback. */
  async start(tenantId: string | undefined, redirectUri: string, returnTo: unknown): Promise<{ url: string; flow: SignInFlow }> {
    const p = await this.providerOf(tenantId);
    const config = await this.clients.configuration(p);
    const flow: SignInFlow = {
      tenantId: p.tenantId,
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      returnTo: safeReturnTo(returnTo),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: p.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: url.href, flow };
  }

  /**
   * The callback: the code exchanged (state, nonce and PKCE checked by openid-client; a tampered
   * state or a replayed code is refused), the person's role from their groups, a new session.
   */
  async finish(callbackUrl: URL, flow: SignInFlow, redirectUri: string): Promise<{ cookie: string; session: PersonSession }> {
    const p = await this.providerOf(flow.tenantId);
    const config = await this.clients.configuration(p);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(
        config,
        callbackUrl,
        { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true },
        { redirect_uri: redirectUri },
      );
    } catch (e) {
      throw new DomainError('UNAUTHENTICATED', `sign-in was not completed: ${reasonOf(e)}`);
    }
    const person = await this.person(p, config, tokens);
    const created = await this.sessions.create(p.tenantId, {
      ...person,
      refreshToken: tokens.refresh_token,
      idToken: tokens.id_token,
      expiresAt: this.sessionEnd(),
    });
    return created;
  }

  /**
   * A session whose time is up, refreshed at the provider with its refresh token: the groups read
   * again as the provider gives them now, and the role from them. Null (and the session ended) when the provider
   * refuses or the person lost their role; a session older than `maxSessionSeconds` is not refreshed.
   */
  async refresh(s: PersonSession): Promise<{ session: PersonSession } | { refused: string }> {
    const tooOld = this.now() - s.createdAt.getTime() > this.opts.maxSessionSeconds * 1000;
    if (!s.refreshToken || tooOld) {
      await this.sessions.end(s);
      return { refused: 'your console session has ended: sign in again' };
    }
    try {
      const p = await this.providerOf(s.tenantId);
      const config = await this.clients.configuration(p);
      const tokens = await client.refreshTokenGrant(config, s.refreshToken);
      const person = await this.person(p, config, tokens, s.sub);
      return {
        session: await this.sessions.extend(s, { ...person, refreshToken: tokens.refresh_token, idToken: tokens.id_token, expiresAt: this.sessionEnd() }),
      };
    } catch (e) {
      await this.sessions.end(s);
      return {
        refused:
          e instanceof DomainError ? e.message : `the identity provider no longer signs you in (${e instanceof Error ? e.message : String(e)}): sign in again`,
      };
    }
  }

  /** Where to send the browser to end the session at the provider too (RP-initiated logout), or null when it offers none. */
  async logoutUrl(s: PersonSession, postLogoutRedirectUri: string): Promise<string | null> {
    const p = await this.providerOf(s.tenantId);
    const config = await this.clients.configuration(p);
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, { post_logout_redirect_uri: postLogoutRedirectUri, ...(s.idToken ? { id_token_hint: s.idToken } : {}) }).href;
  }

  private sessionEnd(): Date {
    return new Date(this.now() + this.opts.sessionSeconds * 1000);
  }

  /** Who the tokens say the person is (ID token, then userinfo for what it lacks), and their role; refused with a clear reason. */
  private async person(
    p: IdentityProvider,
    config: client.Configuration,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
    expectedSub?: string,
  ): Promise<{ iss: string; sub: string; name?: string; email?: string; role: Role; groups: string[] }> {
    const idClaims = (tokens.claims() ?? {}) as Record<string, unknown>;
    const sub = String(idClaims['sub'] ?? expectedSub ?? '');
    if (!sub || (expectedSub !== undefined && sub !== expectedSub))
      throw new DomainError('UNAUTHENTICATED', 'the identity provider answered for another person');
    let claims = idClaims;
    if (claims[p.groupsClaim] === undefined || claims['email'] === undefined) {
      // Many providers put groups and email in userinfo only.
      const info = await client.fetchUserInfo(config, tokens.access_token, sub).catch(() => ({}));
      claims = { ...info, ...idClaims };
    }
    const email = typeof claims['email'] === 'string' ? claims['email'] : undefined;
    if (!emailAllowed(email, p.allowedDomains))
      throw new DomainError('FORBIDDEN', `only people with an email at ${p.allowedDomains.join(', ')} may sign in here`);
    const groups = groupsOf(claims, p.groupsClaim);
    const role = roleOfGroups(groups, p.groupRoles);
    if (role === null) throw new DomainError('FORBIDDEN', noRoleMessage(groups, p));
    const name = typeof claims['name'] === 'string' ? claims['name'] : undefined;
    return { iss: p.issuer, sub, role, groups, ...(name === undefined ? {} : { name }), ...(email === undefined ? {} : { email }) };
  }
}
