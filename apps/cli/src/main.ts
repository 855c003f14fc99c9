import { parseArgs } from 'node:util';
import { CliConfig, ConfigError, parseConfig } from '@hub/config';
import { MigrationError } from '@hub/event-store';
import { acp } from './commands/acp';
import { chat } from './commands/chat';
import { host } from './commands/host';
import { runMigrate, withKeys } from './commands/admin';
import { projectionsRebuild, projectionsStatus } from './commands/projections';
import { up } from './commands/up';

const USAGE = `usage: hub <command>

  up [--port 8080] [--workers 1]   dev stack in the foreground: Postgres + Redis (found or started),
                                   migrations, ingress, workers, a demo tenant
  ingress | worker                 run one part (deployments); configured by environment
  migrate                          apply pending migrations (prisma/migrations)
  tenant create NAME               create a tenant; prints {"tenantId","apiKey","keyPrefix"} once
  tenant list                      list tenants
  key create TENANT_ID [--name N]  another API key for a tenant (printed once)
  key list TENANT_ID               a tenant's keys: prefix, name, created, revoked (no secrets)
  key revoke PREFIX                revoke a key by its visible prefix (hub_xxxxxxxxxxxx)
  chat --session ID PROMPT         send a prompt over the transport WebSocket, print the answer
       [--approve | --deny]        (HUB_URL, HUB_API_KEY); exit 0 answered, 1 turn failed,
                                   3 no hub, 5 an approval waits and there is no terminal to ask
  host --protocol v1 [--bridge-compat] [--single-request]
                                   the Zene host protocol on stdin/stdout (HUB_URL, HUB_API_KEY)
  acp                              the hub as an ACP agent on stdin/stdout (HUB_URL, HUB_API_KEY)
  projections status               each read model's checkpoint, lag in events and time (JSON lines)
  projections rebuild NAME         empty a read model and replay the log into it, with progress
`;

const say = (line: string) => process.stderr.write(`${line}\n`);
const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(argv: string[]): Promise<number> {
  // Before the generic parsing: host has upstream's flags and answers even its errors in JSON.
  if (argv[0] === 'host') return host(argv.slice(1));
  if (argv[0] === 'acp') return acp();
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' }, workers: { type: 'string' }, name: { type: 'string' }, session: { type: 'string' },
      approve: { type: 'boolean' }, deny: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, sub, arg] = positionals;
  if (!cmd || values.help || cmd === 'help') return void process.stdout.write(USAGE), 0;
  const config = parseConfig(CliConfig);
  switch (`${cmd}${sub && ['tenant', 'key', 'projections'].includes(cmd) ? ` ${sub}` : ''}`) {
    case 'up':
      return up({ port: Number(values.port ?? config.PORT), workers: Number(values.workers ?? 1), databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL }, say);
    case 'migrate':
      await runMigrate(config.DATABASE_URL, say);
      return 0;
    case 'tenant create':
      if (!arg) throw new UsageError('tenant create needs a NAME');
      return withKeys(config.DATABASE_URL, async (k) => (out(await k.createTenant(arg).then(({ tenantId, apiKey, keyPrefix }) => ({ tenantId, apiKey, keyPrefix }))), 0));
    case 'tenant list':
      return withKeys(config.DATABASE_URL, async (k) => ((await k.listTenants()).forEach((t) => out(t)), 0));
    case 'key create':
      if (!arg) throw new UsageError('key create needs a TENANT_ID');
      return withKeys(config.DATABASE_URL, async (k) => (out(await k.createKey(arg, values.name ?? 'cli')), 0));
    case 'key list':
      if (!arg) throw new UsageError('key list needs a TENANT_ID');
      return withKeys(config.DATABASE_URL, async (k) => ((await k.listKeys(arg)).forEach((key) => out(key)), 0));
    case 'key revoke':
      if (!arg) throw new UsageError('key revoke needs a PREFIX');
      return withKeys(config.DATABASE_URL, async (k) => {
        const revoked = await k.revoke(arg);
        out({ prefix: arg, revoked });
        return revoked ? 0 : 1;
      });
    case 'projections status':
      return projectionsStatus(config.DATABASE_URL, out);
    case 'projections rebuild':
      if (!arg) throw new UsageError('projections rebuild needs a NAME (sessions, turns, approvals)');
      return projectionsRebuild(config.DATABASE_URL, arg, out, say);
    case 'chat':
      if (!values.session || !sub) throw new UsageError('chat needs --session ID and a PROMPT');
      if (!config.HUB_API_KEY) throw new UsageError('chat needs HUB_API_KEY');
      return chat({ hubUrl: config.HUB_URL, apiKey: config.HUB_API_KEY, sessionId: values.session, prompt: positionals.slice(1).join(' '), approvals: values.approve ? 'approve' : values.deny ? 'deny' : 'ask' });
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError) process.stderr.write(`hub: ${e.message}\n\n${USAGE}`);
    else if (e instanceof ConfigError || e instanceof MigrationError) process.stderr.write(`hub: ${e.message}\n`);
    else process.stderr.write(`hub: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof UsageError || e instanceof ConfigError ? 2 : 1);
  },
);
