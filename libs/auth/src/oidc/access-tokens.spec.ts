import { isDomainError } from '@hub/domain';
import { OidcTestProvider, TEST_AUDIENCE, TEST_CLIENT } from '@hub/testing';
import { actorOf } from '../principal';
import { AccessTokens } from './access-tokens';
import { OidcClients } from './clients';
import type { IdentityProvider } from './provider';

// A real provider (oidc-provider, in this process) issues the tokens; the hub's side checks them.
const TENANT = '00000000-0000-4000-8000-000000000001';
let idp: OidcTestProvider;
let other: OidcTestProvider;
let tokens: AccessTokens;

const accounts = [
  { sub: 'ada', name: 'Ada Admin', email: 'ada@example.com', groups: ['hub-admins', 'staff'] },
  { sub: 'aaron', name: 'Aaron Approver', email: 'aaron@example.com', groups: ['approvers'] },
  { sub: 'nora', name: 'Nora Nobody', email: 'nora@example.com', groups: ['staff'] },
  { sub: 'olga', name: 'Olga Outside', email: 'olga@elsewhere.org', groups: ['approvers'] },
];

function providerFor(issuer: string, over: Partial<IdentityProvider> = {}): IdentityProvider {
  return {
    tenantId: TENANT,
    source: 'tenant',
    name: 'Test IdP',
    issuer,
    clientId: TEST_CLIENT.id,
    clientSecret: TEST_CLIENT.secret,
    audience: TEST_AUDIENCE,
    scopes: ['openid'],
    groupsClaim: 'groups',
    groupRoles: { 'hub-admins': 'admin', approvers: 'approver' },
    allowedDomains: ['example.com'],
    apiKeyConsole: true,
    ...over,
  };
}

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('accepted');
}

beforeAll(async () => {
  [idp, other] = await Promise.all([OidcTestProvider.start({ accounts }), OidcTestProvider.start({ accounts })]);
  // The store's lookup by issuer, as a tenant that set this provider would have it.
  tokens = new AccessTokens({ forIssuer: async (iss) => (iss === idp.issuer ? [providerFor(idp.issuer)] : []) }, new OidcClients());
});
afterAll(async () => Promise.all([idp?.stop(), other?.stop()]));

describe('access tokens from the identity provider', () => {
  it("makes a person's principal: who they are, their groups, and the strongest role their groups map to", async () => {
    const p = await tokens.verify(await idp.accessToken('ada'));
    expect(p).toMatchObject({
      tenantId: TENANT,
      role: 'admin',
      keyPrefix: `${idp.issuer}#ada`,
      keyName: 'Ada Admin',
      person: { iss: idp.issuer, sub: 'ada', name: 'Ada Admin', email: 'ada@example.com', groups: ['hub-admins', 'staff'] },
    });
    expect(p.person?.expiresAt).toBeGreaterThan(Date.now());
    // The groups travel to the actor, where an approval rule's `approvers.groups` is checked.
    expect(actorOf(p).groups).toEqual(['hub-admins', 'staff']);
    expect((await tokens.verify(await idp.accessToken('aaron'))).role).toBe('approver');
  });

  it('refuses a person in no mapped group, saying which groups would do', async () => {
    const r = await refusal(tokens.verify(await idp.accessToken('nora')));
    expect(r.code).toBe('FORBIDDEN');
    expect(r.message).toMatch(/groups staff map to no role.*hub-admins, approvers/);
  });

  it('refuses an email outside the allowed domains', async () => {
    expect(await refusal(tokens.verify(await idp.accessToken('olga')))).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/example\.com/) });
  });

  it('refuses another audience, another issuer, and a tampered signature', async () => {
    expect(await refusal(tokens.verify(await idp.accessToken('ada', { resource: 'urn:somebody-else' })))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/audience \(urn:somebody-else\)/),
    });
    expect(await refusal(tokens.verify(await other.accessToken('ada')))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/issuer .* not accepted/),
    });
    const good = await idp.accessToken('aaron');
    const [h, body, sig] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), groups: ['hub-admins'] })).toString('base64url');
    expect(await refusal(tokens.verify(`${h}.${forged}.${sig}`))).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/does not verify/) });
  });
});
