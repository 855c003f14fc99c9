import { actorIdentity } from '@hub/domain';
import { actorOf, personPrincipal } from '../principal';
import { safeReturnTo } from './console-sign-in';
import { deploymentProvider } from './deployment';
import { IdentityProviderInput, emailAllowed, groupsOf, roleOfGroups } from './provider';

describe('group to role mapping (strict)', () => {
  const map = { admins: 'admin', approvers: 'approver', readers: 'viewer' } as const;
  it('gives the strongest mapped role, and none for no mapped group', () => {
    expect(roleOfGroups(['readers', 'approvers', 'staff'], map)).toBe('approver');
    expect(roleOfGroups(['readers', 'admins'], map)).toBe('admin');
    expect(roleOfGroups(['staff'], map)).toBeNull();
    expect(roleOfGroups([], map)).toBeNull();
    // A group named like an object's own property is not a mapping.
    expect(roleOfGroups(['constructor', 'toString'], map)).toBeNull();
  });

  it('reads groups as an array or a separated string', () => {
    expect(groupsOf({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ roles: 'a b,c' }, 'roles')).toEqual(['a', 'b', 'c']);
    expect(groupsOf({}, 'groups')).toEqual([]);
  });

  it('checks email domains, case-insensitively; no list allows anyone', () => {
    expect(emailAllowed('a@Example.COM', ['example.com'])).toBe(true);
    expect(emailAllowed('a@example.com.evil.org', ['example.com'])).toBe(false);
    expect(emailAllowed(undefined, ['example.com'])).toBe(false);
    expect(emailAllowed(undefined, [])).toBe(true);
  });
});

describe('settings', () => {
  it('validates what an admin sends: https issuers (http only on loopback), at least one mapped group, known roles', () => {
    const ok = IdentityProviderInput.parse({ issuer: 'https://id.example/', clientId: 'hub', groupRoles: { g: 'approver' } });
    expect(ok).toMatchObject({
      issuer: 'https://id.example',
      scopes: ['openid', 'profile', 'email'],
      groupsClaim: 'groups',
      allowedDomains: [],
      apiKeyConsole: true,
    });
    expect(IdentityProviderInput.safeParse({ issuer: 'http://127.0.0.1:9000', clientId: 'hub', groupRoles: { g: 'admin' } }).success).toBe(true);
    expect(IdentityProviderInput.safeParse({ issuer: 'http://id.example', clientId: 'hub', groupRoles: { g: 'admin' } }).success).toBe(false);
    expect(IdentityProviderInput.safeParse({ issuer: 'https://id.example', clientId: 'hub', groupRoles: {} }).success).toBe(false);
    expect(IdentityProviderInput.safeParse({ issuer: 'https://id.example', clientId: 'hub', groupRoles: { g: 'root' } }).success).toBe(false);
    expect(IdentityProviderInput.safeParse({ issuer: 'https://id.example', clientId: 'hub', groupRoles: { g: 'admin' }, extra: 1 }).success).toBe(false);
  });

  it('builds the deployment provider from HUB_OIDC_*, and refuses a half-set one', () => {
    const base = { name: 'SSO', scopes: 'openid groups', groupsClaim: 'groups', apiKeyConsole: false };
    expect(deploymentProvider(base)).toBeUndefined();
    expect(
      deploymentProvider({
        ...base,
        issuer: 'https://id.example/',
        tenantId: 't',
        clientId: 'hub',
        groupRoles: 'a=admin, b=approver',
        allowedDomains: 'Example.com',
      }),
    ).toMatchObject({
      tenantId: 't',
      source: 'deployment',
      issuer: 'https://id.example',
      audience: 'hub',
      scopes: ['openid', 'groups'],
      groupRoles: { a: 'admin', b: 'approver' },
      allowedDomains: ['example.com'],
      apiKeyConsole: false,
    });
    expect(() => deploymentProvider({ ...base, issuer: 'https://id.example' })).toThrow(/HUB_OIDC_TENANT, HUB_OIDC_CLIENT_ID, HUB_OIDC_GROUP_ROLES/);
  });

  it('sends people back only to the console', () => {
    expect(safeReturnTo('/console/sessions/a')).toBe('/console/sessions/a');
    for (const bad of ['https://evil.example/', '//evil.example/console', '/consolex', '/v1/admin/keys', 42]) expect(safeReturnTo(bad)).toBe('/console/');
  });
});

it('a person is the actor: iss and sub, counted apart from keys and from people of another issuer', () => {
  const p = personPrincipal('t', 'approver', {
    iss: 'https://a.example',
    sub: '42',
    name: 'Aaron',
    email: 'aaron@example.com',
    groups: ['finance', 'staff'],
    expiresAt: 1,
  });
  const actor = actorOf(p);
  expect(actor).toEqual({
    type: 'person',
    id: 'https://a.example#42',
    iss: 'https://a.example',
    sub: '42',
    name: 'Aaron',
    email: 'aaron@example.com',
    role: 'approver',
    groups: ['finance', 'staff'],
  });
  const other = actorOf(personPrincipal('t', 'approver', { iss: 'https://b.example', sub: '42', groups: [], expiresAt: 1 }));
  expect(actorIdentity(actor)).not.toBe(actorIdentity(other));
  expect(actorIdentity(actor)).toBe(
    actorIdentity(actorOf(personPrincipal('t', 'admin', { iss: 'https://a.example', sub: '42', name: 'A. Renamed', groups: ['other'], expiresAt: 2 }))),
  );
});
