// oidc-provider ships no types: the declaration file names the part used here (an ambient module, so a reference, not an import).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./oidc-provider-types.d.ts" />
import { createServer, type Server } from 'node:http';
import type { Configuration } from 'oidc-provider';
import * as client from 'openid-client';
import { freeListenPort } from './ports';

/** A person at the test's identity provider. */
export interface TestAccount {
  sub: string;
  name: string;
  email: string;
  groups: string[];
}

export interface TestProviderOptions {
  accounts: TestAccount[];
  /** The hub's console client: its redirect URIs (login callback) and where it may send people after logout. */
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  /** Access tokens' lifetime in seconds (default 600; `accessToken(…, { ttlSeconds })` for one token). */
  accessTokenTtlSeconds?: number;
}

/** The audience the hub's access tokens carry at the test provider. */
export const TEST_AUDIENCE = 'urn:hub:test';
/** The console client the hub signs people in with. */
export const TEST_CLIENT = { id: 'hub-console', secret: 'hub-console-secret-0123456789abcdef' };
/** A company tool's client (gets access tokens for the hub without the console). */
const TOOL_CLIENT = { id: 'company-tool', secret: 'company-tool-secret-0123456789abcdef', redirect: 'http://127.0.0.1:9/tool-callback' };

/**
 * A real OpenID Connect provider for tests (panva's oidc-provider, in this process, on a free
 * port): accounts in groups (the `groups` claim, in ID tokens, userinfo and the JWT access
 * tokens), authorization code with PKCE, refresh tokens, RP-initiated logout, and JWT access
 * tokens for {@link TEST_AUDIENCE} (or any `urn:` resource asked for: a wrong-audience token).
 * The login page is oidc-provider's development one: any password, the login is the `sub`.
 */
export class OidcTestProvider {
  private constructor(
    readonly issuer: string,
    private readonly server: Server,
    private readonly accounts: Map<string, TestAccount>,
    private readonly ttl: { next?: number },
  ) {}

  static async start(opts: TestProviderOptions): Promise<OidcTestProvider> {
    const port = await freeListenPort();
    const issuer = `http://127.0.0.1:${port}`;
    const accounts = new Map(opts.accounts.map((a) => [a.sub, { ...a }]));
    const claimsOf = (sub: string) => {
      const a = accounts.get(sub);
      return a ? { sub, name: a.name, email: a.email, email_verified: true, groups: [...a.groups] } : undefined;
    };
    const ttl = opts.accessTokenTtlSeconds ?? 600;
    // The lifetime of the token being issued now: one token's own (an expiry test's), else the default.
    const ttlState: { next?: number } = {};
    const accessTtl = () => ttlState.next ?? ttl;
    const config: Configuration = {
      clients: [
        {
          client_id: TEST_CLIENT.id,
          client_secret: TEST_CLIENT.secret,
          redirect_uris: opts.redirectUris ?? ['http://127.0.0.1:9/callback'],
          post_logout_redirect_uris: opts.postLogoutRedirectUris ?? [],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        {
          client_id: TOOL_CLIENT.id,
          client_secret: TOOL_CLIENT.secret,
          redirect_uris: [TOOL_CLIENT.redirect],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      findAccount: (_ctx, sub) => {
        const claims = claimsOf(sub);
        return claims ? { accountId: sub, claims: () => claims } : undefined;
      },
      claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
      pkce: { required: () => true },
      // The person's claims (groups among them) in the ID token too, as most company providers do.
      conformIdTokenClaims: false,
      issueRefreshToken: (_ctx, c) => c.grantTypeAllowed('refresh_token'),
      ttl: { AccessToken: () => accessTtl(), IdToken: 600, Grant: 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60, RefreshToken: 3600 },
      features: {
        devInteractions: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => TEST_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => ({
            audience: resource,
            scope: 'openid profile email groups',
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTtl(),
          }),
        },
      },
      // The person's groups, name and email in the JWT access token (read when it is issued: a group change shows in the next token).
      extraTokenClaims: (_ctx, token) => {
        const sub = (token as { accountId?: string }).accountId;
        const claims = sub ? claimsOf(sub) : undefined;
        return claims ? { groups: claims.groups, name: claims.name, email: claims.email } : {};
      },
    };
    // Loaded here, not at the top: every spec imports @hub/testing, and only the sign-in specs need
    // an identity provider (oidc-provider and its Koa stack take a while to load).
    const { default: Provider } = await import('oidc-provider');
    const provider = new Provider(issuer, config);
    const server = createServer(provider.callback());
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    return new OidcTestProvider(issuer, server, accounts, ttlState);
  }

  /** Moves a person to other groups: their next sign-in (or next token) carries them. */
  setGroups(sub: string, groups: string[]): void {
    const a = this.accounts.get(sub);
    if (!a) throw new Error(`no test account ${sub}`);
    a.groups = [...groups];
  }

  /**
   * An access token for `sub`, the way a company's tool gets one: the authorization code flow
   * with PKCE through the provider's (development) login and consent pages, then the code
   * exchanged at the token endpoint. `resource` picks the audience (default {@link TEST_AUDIENCE}),
   * `ttlSeconds` the token's lifetime.
   */
  async accessToken(sub: string, o: { resource?: string; ttlSeconds?: number } = {}): Promise<string> {
    const resource = o.resource ?? TEST_AUDIENCE;
    const config = await client.discovery(new URL(this.issuer), TOOL_CLIENT.id, TOOL_CLIENT.secret, undefined, { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: TOOL_CLIENT.redirect,
      scope: 'openid profile email groups',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource,
      prompt: 'login consent',
    });
    const callback = await this.signInHeadless(url, sub, TOOL_CLIENT.redirect);
    this.ttl.next = o.ttlSeconds;
    try {
      const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state }, { resource });
      return tokens.access_token;
    } finally {
      this.ttl.next = undefined;
    }
  }

  /** Follows an authorization URL through the development login and consent pages as `sub`; answers the redirect to `redirectPrefix`. */
  async signInHeadless(authorizationUrl: URL, sub: string, redirectPrefix: string): Promise<string> {
    const jar = new Map<string, string>();
    let next = authorizationUrl.href;
    for (let hop = 0; hop < 20; hop++) {
      if (next.startsWith(redirectPrefix)) return next;
      let res = await this.fetchWith(jar, next);
      if (res.status === 200 && new URL(next).pathname.startsWith('/interaction/')) {
        const html = await res.text();
        const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
        if (!prompt) throw new Error(`no prompt on ${next}: ${html.slice(0, 300)}`);
        const body = new URLSearchParams(prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt });
        res = await this.fetchWith(jar, next, body);
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`sign-in stopped at ${next} (${res.status}): ${(await res.text()).slice(0, 300)}`);
      next = new URL(location, next).href;
    }
    throw new Error('sign-in took more than 20 redirects');
  }

  private async fetchWith(jar: Map<string, string>, url: string, body?: URLSearchParams): Promise<Response> {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
