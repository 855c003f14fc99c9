import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** `hub idp` usage: a client of the admin API (`/v1/admin/idp`) with HUB_URL and an admin's HUB_API_KEY. */
export const IDP_USAGE = `usage: hub idp <command> (HUB_URL, HUB_API_KEY of an admin; docs/sign-in-oidc.md)

  show                             the tenant's identity provider (never its client secret)
  set --issuer URL --client-id ID --group-role GROUP=ROLE [--group-role ...]
      [--client-secret-file PATH] [--audience AUD] [--name NAME] [--scopes "openid profile email"]
      [--groups-claim groups] [--allowed-domains a.example,b.example] [--no-api-key-console]
                                   sign-in with OpenID Connect for the tenant; a person in no
                                   mapped group is refused. Without --client-secret-file the
                                   stored secret is kept (same client id) or none (a public client)
  remove                           the tenant's own provider
  sessions [--sub SUB]             signed-in people's console sessions (JSON lines)
  sessions revoke (--sub SUB | --all)
                                   end a person's (or everyone's) console sessions, at once
`;

export class IdpUsageError extends Error {}

/** The request one command makes: method, path and body. */
export function idpRequestOf(
  argv: string[],
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): { method: string; path: string; body?: unknown } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-file': { type: 'string' },
      audience: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'groups-claim': { type: 'string' },
      'group-role': { type: 'string', multiple: true },
      'allowed-domains': { type: 'string' },
      'no-api-key-console': { type: 'boolean' },
      sub: { type: 'string' },
      all: { type: 'boolean' },
    },
  });
  const [cmd, sub] = positionals;
  switch (cmd) {
    case 'show':
      return { method: 'GET', path: '/v1/admin/idp' };
    case 'remove':
      return { method: 'DELETE', path: '/v1/admin/idp' };
    case 'set': {
      if (!values.issuer || !values['client-id'] || !values['group-role']?.length)
        throw new IdpUsageError('set needs --issuer, --client-id and at least one --group-role GROUP=ROLE');
      const groupRoles: Record<string, string> = {};
      for (const pair of values['group-role']) {
        const i = pair.lastIndexOf('=');
        if (i <= 0) throw new IdpUsageError(`--group-role ${pair}: expected GROUP=ROLE`);
        groupRoles[pair.slice(0, i)] = pair.slice(i + 1);
      }
      const secretFile = values['client-secret-file'];
      return {
        method: 'PUT',
        path: '/v1/admin/idp',
        body: {
          issuer: values.issuer,
          clientId: values['client-id'],
          ...(secretFile === undefined ? {} : { clientSecret: readFile(secretFile).trim() }),
          ...(values.audience === undefined ? {} : { audience: values.audience }),
          ...(values.name === undefined ? {} : { name: values.name }),
          ...(values.scopes === undefined ? {} : { scopes: values.scopes.split(/\s+/).filter(Boolean) }),
          ...(values['groups-claim'] === undefined ? {} : { groupsClaim: values['groups-claim'] }),
          groupRoles,
          ...(values['allowed-domains'] === undefined
            ? {}
            : {
                allowedDomains: values['allowed-domains']
                  .split(',')
                  .map((d) => d.trim())
                  .filter(Boolean),
              }),
          apiKeyConsole: !values['no-api-key-console'],
        },
      };
    }
    case 'sessions':
      if (sub === undefined)
        return { method: 'GET', path: `/v1/admin/idp/sessions${values.sub === undefined ? '' : `?sub=${encodeURIComponent(values.sub)}`}` };
      if (sub !== 'revoke') throw new IdpUsageError(`unknown sessions command: ${sub}`);
      if (!values.sub === !values.all) throw new IdpUsageError('sessions revoke needs --sub SUB or --all');
      return { method: 'POST', path: '/v1/admin/idp/sessions/revoke', body: values.all ? { all: true } : { sub: values.sub } };
    default:
      throw new IdpUsageError(cmd ? `unknown idp command: ${cmd}` : 'idp needs a command');
  }
}

/**
 * `hub idp ...`: prints the API's answer as JSON lines (sessions one a line); exit 0 on success,
 * 1 when the hub refused (its problem+json on stderr), 2 for a usage error, 3 when the hub cannot
 * be reached.
 */
export async function idp(argv: string[], env: { hubUrl: string; apiKey: string | undefined }): Promise<number> {
  let req: ReturnType<typeof idpRequestOf>;
  try {
    if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) return (void process.stdout.write(IDP_USAGE), 0);
    if (!env.apiKey) throw new IdpUsageError('idp needs HUB_API_KEY (an admin key)');
    req = idpRequestOf(argv);
  } catch (e) {
    if (!(e instanceof IdpUsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw e;
    process.stderr.write(`hub: ${(e as Error).message}\n\n${IDP_USAGE}`);
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(new URL(req.path, env.hubUrl), {
      method: req.method,
      headers: { authorization: `Bearer ${env.apiKey}`, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
    });
  } catch (e) {
    process.stderr.write(`cannot reach the hub at ${env.hubUrl}: ${(e as Error).message}\n`);
    return 3;
  }
  const text = await res.text();
  if (!res.ok) {
    process.stderr.write(`hub: HTTP ${res.status}: ${text}\n`);
    return 1;
  }
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const list = Array.isArray(body['sessions']) ? (body['sessions'] as unknown[]) : [body];
  for (const item of list) process.stdout.write(`${JSON.stringify(item)}\n`);
  return 0;
}
