import { draftOf, EMPTY_DRAFT, providerBody, type ProviderView } from './idp-form';

describe('identity provider form', () => {
  it('builds the PUT body from the typed lists', () => {
    const r = providerBody({
      ...EMPTY_DRAFT,
      name: ' Example SSO ',
      issuer: 'https://login.example.com',
      clientId: 'hub',
      scopes: 'openid, profile groups',
      groupRoles: 'hub-admins = admin\n\n  eng=viewer  \n',
      allowedDomains: 'example.com, example.org',
    });
    expect(r).toEqual({
      ok: true,
      body: {
        name: 'Example SSO',
        issuer: 'https://login.example.com',
        clientId: 'hub',
        scopes: ['openid', 'profile', 'groups'],
        groupsClaim: 'groups',
        groupRoles: { 'hub-admins': 'admin', eng: 'viewer' },
        allowedDomains: ['example.com', 'example.org'],
        apiKeyConsole: true,
      },
    });
  });

  it('names the group mapping line that is not group = role', () => {
    expect(providerBody({ ...EMPTY_DRAFT, groupRoles: 'a = admin\nbroken' })).toEqual({ ok: false, message: 'Group roles, line 2: write it as group = role' });
    expect(providerBody({ ...EMPTY_DRAFT, groupRoles: '= admin' }).ok).toBe(false);
  });

  it('fills the form from a provider, the secret empty (kept) and the audience empty when it is the client id', () => {
    const p: ProviderView = {
      name: 'SSO',
      issuer: 'https://i',
      clientId: 'hub',
      hasClientSecret: true,
      audience: 'hub',
      scopes: ['openid', 'email'],
      groupsClaim: 'roles',
      groupRoles: { ops: 'operator' },
      allowedDomains: [],
      apiKeyConsole: false,
      source: 'tenant',
    };
    const d = draftOf(p);
    expect(d).toMatchObject({ clientSecret: '', audience: '', scopes: 'openid email', groupRoles: 'ops = operator', apiKeyConsole: false });
    const again = providerBody(d);
    expect(again.ok && again.body).toEqual({
      name: 'SSO',
      issuer: 'https://i',
      clientId: 'hub',
      scopes: ['openid', 'email'],
      groupsClaim: 'roles',
      groupRoles: { ops: 'operator' },
      allowedDomains: [],
      apiKeyConsole: false,
    });
  });
});
