import { IdpUsageError, idpRequestOf } from './idp';

describe('hub idp: the request each command makes', () => {
  it('maps commands to the admin API, the client secret read from a file', () => {
    const read = (path: string) => (path === '/run/secret' ? 's3cret\n' : '');
    expect(
      idpRequestOf(
        [
          'set',
          '--issuer',
          'https://id.example',
          '--client-id',
          'hub',
          '--client-secret-file',
          '/run/secret',
          '--group-role',
          'eng-admins=admin',
          '--group-role',
          'a=b=approver',
          '--allowed-domains',
          'example.com, corp.example',
          '--no-api-key-console',
        ],
        read,
      ),
    ).toEqual({
      method: 'PUT',
      path: '/v1/admin/idp',
      body: {
        issuer: 'https://id.example',
        clientId: 'hub',
        clientSecret: 's3cret',
        groupRoles: { 'eng-admins': 'admin', 'a=b': 'approver' },
        allowedDomains: ['example.com', 'corp.example'],
        apiKeyConsole: false,
      },
    });
    expect(idpRequestOf(['show'])).toEqual({ method: 'GET', path: '/v1/admin/idp' });
    expect(idpRequestOf(['remove'])).toEqual({ method: 'DELETE', path: '/v1/admin/idp' });
    expect(idpRequestOf(['sessions', '--sub', 'a b'])).toEqual({ method: 'GET', path: '/v1/admin/idp/sessions?sub=a%20b' });
    expect(idpRequestOf(['sessions', 'revoke', '--sub', 'ada'])).toEqual({ method: 'POST', path: '/v1/admin/idp/sessions/revoke', body: { sub: 'ada' } });
    expect(idpRequestOf(['sessions', 'revoke', '--all'])).toEqual({ method: 'POST', path: '/v1/admin/idp/sessions/revoke', body: { all: true } });
  });

  it('says what is missing', () => {
    expect(() => idpRequestOf(['set', '--issuer', 'https://id.example', '--client-id', 'hub'])).toThrow(/at least one --group-role/);
    expect(() => idpRequestOf(['set', '--issuer', 'https://id.example', '--client-id', 'hub', '--group-role', 'admins'])).toThrow(/GROUP=ROLE/);
    expect(() => idpRequestOf(['sessions', 'revoke'])).toThrow(IdpUsageError);
    expect(() => idpRequestOf(['fly'])).toThrow(/unknown idp command: fly/);
  });
});
