import { parseArgs } from 'node:util';
import { LIMIT_OPTIONS, limitFlagsOf } from './commands/limit-flags';
import { STATE_DIR } from './paths';

// Nothing heavy is loaded before the arguments parse: `hub --help` and a usage error load no
// library. Then the settings (zod), then the one command's module and what it pulls in (pg,
// Prisma, BullMQ, the client, the protocol libraries), so a call pays for its own command only:
// the suite and scripts run `hub tenant create` and `hub replay` hundreds of times. Only local
// modules are imported lazily here, so no library is both a static and a lazy import of this app
// (Nx's boundary rule forbids it).
const settings = () => import('./settings');
const commands = {
  acp: () => import('./commands/acp'),
  admin: () => import('./commands/admin'),
  audit: () => import('./commands/audit'),
  chat: () => import('./commands/chat'),
  host: () => import('./commands/host'),
  idp: () => import('./commands/idp'),
  keys: () => import('./commands/keys'),
  limits: () => import('./commands/limits'),
  migrate: () => import('./commands/migrate'),
  policy: () => import('./commands/policy'),
  projections: () => import('./commands/projections'),
  replay: () => import('./commands/replay'),
  retention: () => import('./commands/retention'),
  schedules: () => import('./commands/schedules'),
  status: () => import('./commands/status'),
  up: () => import('./commands/up'),
  webhooks: () => import('./commands/webhooks'),
};

const USAGE = `usage: hub <command>

  up [--port 8080] [--workers 1]   dev stack in the foreground: Postgres + Redis (found or started),
                                   migrations, ingress, workers, a demo tenant
  ingress | worker                 run one part (deployments); configured by environment
  migrate                          apply pending migrations (prisma/migrations)
  tenant create NAME               create a tenant; prints {"tenantId","apiKey","keyPrefix"} once
                                   (that first key has the admin role)
  tenant list                      list tenants
  tenant limits TENANT_ID [--turns-per-minute N] [--concurrent-turns N] [--tokens-per-day N]
               [--sessions N] [--open-sockets N] [--event-bytes-per-day N] [--retention-days N]
                                   print the tenant's limits; with flags set those (none: lift)
  key create TENANT_ID [--name N] [--role R] [--expires 30d|ISO-TIME]
                                   another API key (printed once); R: admin, operator (default),
                                   approver, viewer, client
  key list TENANT_ID               a tenant's keys: prefix, name, role, created, expires, last
                                   used, revoked (no secrets)
  key revoke PREFIX                revoke a key by its visible prefix (hub_xxxxxxxxxxxx)
  chat --session ID PROMPT         send a prompt over the transport WebSocket, print the answer
       [--approve | --deny]        (HUB_URL, HUB_API_KEY); exit 0 answered, 1 turn failed,
                                   3 no hub, 5 an approval waits and there is no terminal to ask
  host --protocol v1 [--bridge-compat] [--single-request]
                                   the Zene host protocol on stdin/stdout (HUB_URL, HUB_API_KEY)
  acp                              the hub as an ACP agent on stdin/stdout (HUB_URL, HUB_API_KEY)
  status [--json] [--stuck-after 300]
                                   workers alive per queue, queue depths, running and stuck turns,
                                   pending approvals, projection lag; exit 1 when a turn is stuck
                                   or no worker is connected
  audit verify [--tenant T] [--session S] | --file EXPORT.ndjson
                                   re-hash the log's chains (or an export, offline); each broken
                                   stream's first broken link as a JSON line; exit 1 when broken
  audit heads [--tenant T]         each stream's version and head hash: keep it elsewhere as the anchor
  export SESSION --tenant T        a session's events with their hashes as NDJSON on stdout
  replay SESSION --tenant T | --all [--tenant T] [--wait 10] [--skip-lagging]
                                   fold the log again into the session's snapshot and read-model
                                   rows and compare with what is stored, field by field; exit 1
                                   when anything differs
  retention run --archive DIR [--tenant T] [--older-than DAYS] [--dry-run]
                                   archive (export with hashes) then erase every session idle
                                   longer than its tenant's retentionDays (or DAYS); a JSON line
                                   per session; exit 1 when one had to be left for the next run
  projections status               each read model's checkpoint, lag in events and time (JSON lines)
  projections rebuild NAME         empty a read model and replay the log into it, with progress
  schedules list|create|get|pause|resume|trigger|backfill|preview|ticks|delete ...
                                   schedules of agent runs over the HTTP API (HUB_URL,
                                   HUB_API_KEY); \`hub schedules help\` for the flags
  policy show|set FILE|explain TOOL [JSON_ARGS]
                                   the tenant's approval policy over the HTTP API (HUB_URL,
                                   HUB_API_KEY); \`hub policy help\` for the flags
  webhooks list|create|get|update|delete|rotate|test|attempts|messages|redeliver|links ...
                                   webhook endpoints and their delivery log over the HTTP API
                                   (HUB_URL, HUB_API_KEY); \`hub webhooks help\` for the flags
  idp show|set|remove|sessions [revoke] ...
                                   sign-in with the tenant's OpenID Connect provider and its
                                   people's console sessions over the HTTP API (HUB_URL, an
                                   admin's HUB_API_KEY); \`hub idp help\` for the flags
`;

const say = (line: string) => process.stderr.write(`${line}\n`);
/** Writes to stdout, waiting for a drain when the pipe is full (exports of any size, flat memory). */
const writeOut = (chunk: string) => new Promise<void>((resolve) => (process.stdout.write(chunk) ? resolve() : process.stdout.once('drain', resolve)));
const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(argv: string[]): Promise<number> {
  // Before the generic parsing: host has upstream's flags and answers even its errors in JSON.
  if (argv[0] === 'host') return (await commands.host()).host(argv.slice(1));
  if (argv[0] === 'acp') return (await commands.acp()).acp();
  if (argv[0] === 'idp') {
    const { CliConfig, parseConfig } = await settings();
    const c = parseConfig(CliConfig);
    return (await commands.idp()).idp(argv.slice(1), { hubUrl: c.HUB_URL, apiKey: c.HUB_API_KEY });
  }
  if (argv[0] === 'webhooks') {
    const { CliConfig, parseConfig } = await settings();
    const c = parseConfig(CliConfig);
    return (await commands.webhooks()).webhooks(argv.slice(1), { hubUrl: c.HUB_URL, apiKey: c.HUB_API_KEY });
  }
  if (argv[0] === 'policy') {
    const { CliConfig, parseConfig } = await settings();
    const c = parseConfig(CliConfig);
    return (await commands.policy()).policy(argv.slice(1), { hubUrl: c.HUB_URL, apiKey: c.HUB_API_KEY });
  }
  if (argv[0] === 'schedules') {
    const { CliConfig, parseConfig } = await settings();
    const c = parseConfig(CliConfig);
    return (await commands.schedules()).schedules(argv.slice(1), { hubUrl: c.HUB_URL, apiKey: c.HUB_API_KEY });
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      workers: { type: 'string' },
      name: { type: 'string' },
      session: { type: 'string' },
      role: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
      'stuck-after': { type: 'string' },
      tenant: { type: 'string' },
      file: { type: 'string' },
      all: { type: 'boolean' },
      wait: { type: 'string' },
      'skip-lagging': { type: 'boolean' },
      approve: { type: 'boolean' },
      deny: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      archive: { type: 'string' },
      'older-than': { type: 'string' },
      'dry-run': { type: 'boolean' },
      ...LIMIT_OPTIONS,
    },
  });
  const [cmd, sub, arg] = positionals;
  if (!cmd || values.help || cmd === 'help') return (void process.stdout.write(USAGE), 0);
  const { CliConfig, parseConfig, queuePrefix, redisSentinel } = await settings();
  const config = parseConfig(CliConfig);
  // Redis through Sentinel (HUB_REDIS_SENTINELS) as ingress and worker do, before `status` or
  // `retention run` opens a connection: REDIS_URL's host may be a primary that failed over.
  const sentinel = redisSentinel(config);
  if (sentinel) (await import('./redis-sentinel')).useRedisSentinel(sentinel);
  switch (`${cmd}${sub && ['tenant', 'key', 'projections', 'audit', 'retention'].includes(cmd) ? ` ${sub}` : ''}`) {
    case 'up':
      return (await commands.up()).up(
        {
          port: Number(values.port ?? config.PORT),
          workers: Number(values.workers ?? 1),
          databaseUrl: config.DATABASE_URL,
          ownerDatabaseUrl: config.HUB_OWNER_DATABASE_URL,
          redisUrl: config.REDIS_URL,
          stateDir: config.HUB_STATE_DIR ?? STATE_DIR,
        },
        say,
      );
    case 'migrate':
      // Without an owner URL, DATABASE_URL owns the tables and migrates them (one role).
      await (
        await commands.migrate()
      ).runMigrate(config.HUB_OWNER_DATABASE_URL ? { owner: config.HUB_OWNER_DATABASE_URL, app: config.DATABASE_URL } : { owner: config.DATABASE_URL }, say);
      return 0;
    case 'tenant create':
      if (!arg) throw new UsageError('tenant create needs a NAME');
      return (out(await (await commands.keys()).tenantCreate(config.DATABASE_URL, arg)), 0);
    case 'tenant list':
      return (await commands.admin()).withKeys(config.DATABASE_URL, async (k) => ((await k.listTenants()).forEach((t) => out(t)), 0));
    case 'tenant limits':
      if (!arg) throw new UsageError('tenant limits needs a TENANT_ID');
      return (out(await (await commands.limits()).tenantLimits(config.DATABASE_URL, arg, limitFlagsOf(values))), 0);
    case 'key create':
      if (!arg) throw new UsageError('key create needs a TENANT_ID');
      {
        const { keyCreate, roleOption, expiresOption } = await commands.keys();
        return (out(await keyCreate(config.DATABASE_URL, arg, values.name ?? 'cli', roleOption(values.role), expiresOption(values.expires))), 0);
      }
    case 'key list':
      if (!arg) throw new UsageError('key list needs a TENANT_ID');
      return (await commands.admin()).withKeys(config.DATABASE_URL, async (k) => ((await k.listKeys(arg)).forEach((key) => out(key)), 0));
    case 'key revoke':
      if (!arg) throw new UsageError('key revoke needs a PREFIX');
      {
        const revoked = await (await commands.keys()).keyRevoke(config.DATABASE_URL, arg);
        out({ prefix: arg, revoked });
        return revoked ? 0 : 1;
      }
    case 'status':
      if (values['stuck-after'] !== undefined && !(Number(values['stuck-after']) > 0)) throw new UsageError('--stuck-after needs a number of seconds');
      return (await commands.status()).status(
        {
          databaseUrl: config.DATABASE_URL,
          queue: { redisUrl: config.REDIS_URL, prefix: queuePrefix(config) },
          stuckAfterMs: Number(values['stuck-after'] ?? 300) * 1000,
          json: values.json ?? false,
        },
        (line) => process.stdout.write(`${line}\n`),
      );
    case 'audit verify':
      return (await commands.audit()).auditVerify(
        { databaseUrl: config.DATABASE_URL, tenantId: values.tenant, sessionId: values.session, file: values.file },
        (l) => process.stdout.write(`${l}\n`),
        say,
      );
    case 'audit heads':
      return (await commands.audit()).auditHeads({ databaseUrl: config.DATABASE_URL, tenantId: values.tenant }, (l) => process.stdout.write(`${l}\n`));
    case 'replay':
      if (!values.all && (!sub || !values.tenant)) throw new UsageError('replay needs a SESSION and --tenant T, or --all [--tenant T]');
      if (values.wait !== undefined && !(Number(values.wait) >= 0)) throw new UsageError('--wait needs a number of seconds');
      return (await commands.replay()).replay(
        {
          databaseUrl: config.DATABASE_URL,
          tenantId: values.tenant,
          sessionId: sub,
          all: values.all ?? false,
          waitMs: values.wait === undefined ? undefined : Number(values.wait) * 1000,
          skipLagging: values['skip-lagging'] ?? false,
        },
        (l) => process.stdout.write(`${l}\n`),
        say,
      );
    case 'export':
      if (!sub || !values.tenant) throw new UsageError('export needs a SESSION and --tenant T');
      return (await commands.audit()).exportSession({ databaseUrl: config.DATABASE_URL, tenantId: values.tenant, sessionId: sub }, writeOut, say);
    case 'retention run':
      if (!values.archive && !values['dry-run'])
        throw new UsageError('retention run needs --archive DIR (where each session is exported before it is erased), or --dry-run');
      if (values['older-than'] !== undefined && !(Number.isInteger(Number(values['older-than'])) && Number(values['older-than']) > 0))
        throw new UsageError('--older-than needs a whole number of days');
      return (await commands.retention()).retentionRun(
        {
          databaseUrl: config.DATABASE_URL,
          queue: { redisUrl: config.REDIS_URL, prefix: queuePrefix(config) },
          archiveDir: values.archive ?? '',
          tenantId: values.tenant,
          olderThanDays: values['older-than'] === undefined ? undefined : Number(values['older-than']),
          dryRun: values['dry-run'] ?? false,
        },
        (l) => process.stdout.write(`${l}\n`),
        say,
      );
    case 'projections status':
      return (await commands.projections()).projectionsStatus(config.DATABASE_URL, out);
    case 'projections rebuild':
      if (!arg) throw new UsageError('projections rebuild needs a NAME (sessions, turns, approvals, usage)');
      return (await commands.projections()).projectionsRebuild(config.DATABASE_URL, arg, out, say);
    case 'chat':
      if (!values.session || !sub) throw new UsageError('chat needs --session ID and a PROMPT');
      if (!config.HUB_API_KEY) throw new UsageError('chat needs HUB_API_KEY');
      return (await commands.chat()).chat({
        hubUrl: config.HUB_URL,
        apiKey: config.HUB_API_KEY,
        sessionId: values.session,
        prompt: positionals.slice(1).join(' '),
        approvals: values.approve ? 'approve' : values.deny ? 'deny' : 'ask',
      });
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
}

class UsageError extends Error {}

/** A ConfigError of the settings: only a failure that says so loads them (to compare classes). */
const isConfigError = async (e: unknown) => e instanceof Error && e.name === 'ConfigError' && e instanceof (await settings()).ConfigError;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (e: unknown) => {
    // A MigrationError or ConfigError prints as any other error: its message (exit 1, 2 for settings).
    if (e instanceof UsageError) process.stderr.write(`hub: ${e.message}\n\n${USAGE}`);
    else process.stderr.write(`hub: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof UsageError || (await isConfigError(e)) ? 2 : 1);
  },
);
