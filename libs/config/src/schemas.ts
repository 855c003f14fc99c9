import { checkCommandRules, parseCommandRules, type CommandRule } from './command-rules';
import { z } from 'zod';
import { envBool, envEnum, envInt, envOptionalString, envOptionalUrl, envString, envUrl } from './fields';

/** Levels `createLogger` accepts (pino's, plus silent). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** Where spans go; `none` still creates trace ids so traceparent propagates. */
export const TRACE_EXPORTERS = ['otlp', 'console', 'none'] as const;
/** Model providers the worker can run turns with; `offline` is deterministic and needs no network. */
export const MODEL_PROVIDERS = ['offline', 'openai', 'anthropic'] as const;

const PORT_MAX = 65535;
const INT32_MAX = 2_147_483_647;

/** Settings every hub process reads: stores, queue, logs, traces. */
function sharedShape(serviceName: string) {
  return {
    DATABASE_URL: envUrl(['postgresql', 'postgres'], { default: 'postgresql://postgres@127.0.0.1:5432/hub' }),
    REDIS_URL: envUrl(['redis', 'rediss'], { default: 'redis://127.0.0.1:6379' }),
    /** BullMQ key prefix. */
    HUB_QUEUE_PREFIX: envString({
      default: 'hub',
      pattern: /^[A-Za-z0-9_.-]{1,64}$/,
      expected: '1-64 characters of A-Z a-z 0-9 _ . -',
    }),
    /**
     * Redis Cluster is not supported: the hub's connections are single-node clients (ADR 0047).
     * Kept as a setting only to refuse `true` with that reason instead of starting half-working.
     */
    HUB_REDIS_CLUSTER: envBool({ default: false }).refine((on) => !on, {
      message:
        'Redis Cluster is not supported (the hub uses single-node Redis clients); for failover run Redis Sentinel and set HUB_REDIS_SENTINELS (docs/high-availability.md)',
      params: { exact: true },
    }),
    /**
     * Redis through Sentinel: `host:port` of each Sentinel, comma-separated. Set, every Redis
     * connection of ingress and worker asks them for the current primary of
     * HUB_REDIS_SENTINEL_NAME (REDIS_URL's host is then unused; its password and db still apply).
     */
    HUB_REDIS_SENTINELS: envOptionalString('comma-separated host:port of the Redis Sentinels (or unset: REDIS_URL is the server)').superRefine((value, ctx) => {
      if (value !== undefined && redisSentinelAddresses(value).some((a) => !a))
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated host:port of the Redis Sentinels' });
    }),
    /** The primary's name the Sentinels monitor (their `sentinel monitor <name> ...`). */
    HUB_REDIS_SENTINEL_NAME: envString({ default: 'mymaster', pattern: /^[A-Za-z0-9_.-]{1,64}$/, expected: '1-64 characters of A-Z a-z 0-9 _ . -' }),
    /**
     * Serve tenants round-robin on the queues (start-time fair queueing over BullMQ priorities),
     * so one tenant's backlog does not hold another's turns behind it. Off: arrival order.
     * Ingress and workers of one deployment should agree.
     */
    HUB_FAIR_SCHEDULING: envBool({ default: true }),
    /**
     * Commands a tenant may run as a stdio MCP server, `;`-separated; each entry is a command
     * line prefix (`node /opt/mcp/server.js`). Unset: no stdio MCP servers at all (a tenant's
     * config would otherwise run any program on our hosts). Streamable HTTP servers need no entry.
     */
    HUB_MCP_STDIO_COMMANDS: envOptionalString(
      '`;`-separated command prefixes, each optionally ending in env:NAME,NAME=VALUE (or unset: stdio MCP servers off)',
    ).superRefine(checkCommandRules),
    /**
     * URLs a tenant's streamable-HTTP MCP server may live under, `;`-separated URL prefixes
     * (`https://mcp.example.com/`). Unset: no HTTP MCP servers (the hub would otherwise fetch any
     * address a tenant names, internal ones included, from inside our network).
     */
    HUB_MCP_HTTP_URLS: envOptionalString('`;`-separated URL prefixes (or unset: HTTP MCP servers off)'),
    /**
     * Commands an OpenEnv environment may run as its wrapped harness (`kind` acp or command),
     * `;`-separated command-line prefixes like HUB_MCP_STDIO_COMMANDS. Unset: only the built-in agent.
     */
    HUB_HARNESS_COMMANDS: envOptionalString(
      '`;`-separated command prefixes, each optionally ending in env:NAME,NAME=VALUE (or unset: wrapped harnesses off)',
    ).superRefine(checkCommandRules),
    /**
     * A session snapshot is written once this many events follow the last one (reads stay
     * snapshot + tail); by whichever process appended them: ingress deciding commands, a worker
     * running turns.
     */
    HUB_SNAPSHOT_EVERY: envInt({ min: 10, max: 1_000_000, default: 500 }),
    /**
     * Connections of the process's main Postgres pool (ADR 0028). Sized on its own, never from
     * the turns in flight: a turn waiting on its model holds no connection, and queries beyond
     * the pool wait in it (backpressure). What a whole deployment holds: docs/connections.md.
     */
    HUB_DB_POOL_SIZE: envInt({ min: 2, max: 500, default: 10 }),
    /**
     * Address ranges (comma-separated CIDRs, `127.0.0.0/8`) webhook deliveries may reach although
     * the SSRF guard refuses them (loopback, private, link-local, metadata). Unset: none (the
     * default; tests and a local receiver set it). Read by ingress (checked as an endpoint is
     * saved) and workers (checked on every attempt's resolved address).
     */
    HUB_WEBHOOK_ALLOWED_NETWORKS: envOptionalString('comma-separated CIDRs, e.g. 127.0.0.0/8 (or unset: only public addresses)').refine(
      (v) => v === undefined || v.split(',').every((c) => /^[0-9a-fA-F.:]+\/\d{1,3}$/.test(c.trim())),
      { message: 'expected comma-separated CIDRs like 127.0.0.0/8 or ::1/128' },
    ),
    LOG_LEVEL: envEnum(LOG_LEVELS, { default: 'info' }),
    OTEL_TRACES_EXPORTER: envEnum(TRACE_EXPORTERS, { default: 'none' }),
    OTEL_EXPORTER_OTLP_ENDPOINT: envOptionalUrl(['http', 'https']),
    OTEL_SERVICE_NAME: envString({
      default: serviceName,
      pattern: /^\S{1,128}$/,
      expected: 'a service name without spaces',
    }),
  };
}

/** The NestJS HTTP + WebSocket edge. */
export const IngressConfig = z.object({
  ...sharedShape('hub-ingress'),
  /**
   * A standby for the read-model lists that tolerate replication lag (the session list, usage):
   * e.g. HAProxy on Patroni's `GET /replica`. Unset: they read from DATABASE_URL (docs/high-availability.md).
   */
  HUB_READ_DATABASE_URL: envOptionalUrl(['postgresql', 'postgres']),
  /** 0 picks a free port (tests); the chosen URL is logged as `ingress listening`. */
  PORT: envInt({ min: 0, max: PORT_MAX, default: 8080 }),
  HOST: envString({ default: '0.0.0.0', pattern: /^\S+$/, expected: 'a host name or address' }),
  HUB_MAX_FRAME_BYTES: envInt({ min: 1024, max: INT32_MAX, default: 1_048_576 }),
  HUB_MAX_BODY_BYTES: envInt({ min: 1024, max: INT32_MAX, default: 1_048_576 }),
  /** An HTTP client has this long to send its request headers (Node's `headersTimeout`); a slow one is cut off with 408. */
  HUB_HTTP_HEADERS_TIMEOUT_MS: envInt({ min: 100, max: 600_000, default: 15_000 }),
  /** ...and this long to send the whole request, body included (Node's `requestTimeout`; it was 300 s, held unauthenticated). */
  HUB_HTTP_REQUEST_TIMEOUT_MS: envInt({ min: 100, max: 3_600_000, default: 60_000 }),
  /** How long ingress waits for a command's outcome before answering "accepted, still running". */
  HUB_COMMAND_TIMEOUT_MS: envInt({ min: 1, max: INT32_MAX, default: 10_000 }),
  /** How long an ACP client has to answer `session/request_permission` before it counts as denied (fail closed). */
  HUB_ACP_PERMISSION_TIMEOUT_MS: envInt({ min: 1, max: INT32_MAX, default: 120_000 }),
  /** Open WebSockets one ingress process holds (every protocol); over it an upgrade gets 503 + Retry-After. */
  HUB_WS_MAX_SOCKETS: envInt({ min: 1, max: 1_000_000, default: 10_000 }),
  /**
   * Bytes a WebSocket may hold unsent in ingress (ws's `bufferedAmount`) before the next frame:
   * at or over it the client is not reading, and the socket is closed 4008 (slow consumer) and
   * its feed released; the client resumes by cursor. Per socket, on every protocol that streams.
   */
  HUB_WS_MAX_BUFFERED_BYTES: envInt({ min: 1024, max: INT32_MAX, default: 1_048_576 }),
  /** How often open sockets re-check their API key (one batched query); a revoked key's sockets close within about this long. */
  HUB_KEY_RECHECK_MS: envInt({ min: 100, max: 600_000, default: 2_000 }),
  /**
   * How long a WebSocket's place in its tenant's `openSockets` count lasts unless its ingress
   * renews it (every third of this): the sockets of an ingress killed with -9 stop counting within it.
   */
  HUB_SOCKET_LEASE_MS: envInt({ min: 300, max: 3_600_000, default: 30_000 }),
  /** How often each ingress looks for due schedule ticks (one query; a due schedule is decided by one ingress at a time); 0: this ingress runs no schedules. */
  HUB_SCHEDULE_POLL_MS: envInt({ min: 0, max: 3_600_000, default: 1_000 }),
  /**
   * The deployment operator's key for `POST/GET /v1/admin/tenants` (at least 32 characters;
   * compared in constant time). Unset: tenants are created only with `bin/hub tenant create`.
   */
  /** How long a rotated webhook secret keeps signing beside the new one, unless the rotation says otherwise. */
  HUB_WEBHOOK_ROTATION_OVERLAP_MS: envInt({ min: 0, max: INT32_MAX, default: 86_400_000 }),
  HUB_OPERATOR_KEY: envOptionalString('a secret of at least 32 characters (or unset: no tenant admin over HTTP)').refine(
    (v) => v === undefined || v.length >= 32,
    {
      message: 'expected a secret of at least 32 characters',
    },
  ),
  /**
   * The deployment-wide OpenID Connect provider (issue 24, docs/sign-in-oidc.md), for a
   * single-tenant install: people of HUB_OIDC_TENANT sign in with it unless the tenant's admin set
   * a provider of its own. Unset issuer: none. The others mean what `hub idp set`'s flags mean.
   */
  HUB_OIDC_ISSUER: envOptionalUrl(['https', 'http']),
  HUB_OIDC_TENANT: envOptionalString('the tenant id (a UUID) people of the deployment provider sign in to').refine(
    (v) => v === undefined || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
    {
      message: 'expected a tenant id (a UUID, as `hub tenant list` prints)',
    },
  ),
  HUB_OIDC_CLIENT_ID: envOptionalString('the client id the provider gave this hub'),
  HUB_OIDC_CLIENT_SECRET: envOptionalString('the client secret (or unset: a public client, PKCE only)'),
  HUB_OIDC_AUDIENCE: envOptionalString("the `aud` of the provider's access tokens for this hub (or unset: the client id)"),
  HUB_OIDC_NAME: envString({ default: 'your identity provider', pattern: /^.{1,100}$/, expected: "what the console's sign-in button names" }),
  HUB_OIDC_SCOPES: envString({ default: 'openid profile email', pattern: /^openid( [\x21-\x7e]+)*$/, expected: 'space-separated scopes, openid first' }),
  HUB_OIDC_GROUPS_CLAIM: envString({ default: 'groups', pattern: /^\S{1,200}$/, expected: 'the claim that lists the groups' }),
  /** `group=role,group=role`: a person in no mapped group is refused. */
  HUB_OIDC_GROUP_ROLES: envOptionalString('comma-separated group=role pairs, e.g. hub-admins=admin,approvers=approver').refine(
    (v) => v === undefined || v.split(',').every((pair) => /^[^=,]+=(admin|operator|approver|viewer|client)$/.test(pair.trim())),
    { message: 'expected comma-separated group=role pairs (roles: admin, operator, approver, viewer, client)' },
  ),
  HUB_OIDC_ALLOWED_DOMAINS: envOptionalString('comma-separated email domains (or unset: any)'),
  HUB_OIDC_API_KEY_CONSOLE: envBool({ default: true }),
  /** How long a console session lasts before it is refreshed at the provider (and roles re-read), in seconds. */
  HUB_OIDC_SESSION_SECONDS: envInt({ min: 30, max: 86_400, default: 900 }),
});
export type IngressConfig = z.output<typeof IngressConfig>;

/** BullMQ workers and projectors. */
export const WorkerConfig = z.object({
  ...sharedShape('hub-worker'),
  /**
   * Turns one worker runs at once, at most (ADR 0028). A turn waiting on its model costs a
   * promise and a little memory, not a connection, so the ceiling is high; the worker takes
   * fewer while its event loop lags or its appends back up (the admission gate).
   */
  HUB_WORKER_CONCURRENCY: envInt({ min: 1, max: 10_000, default: 1000 }),
  /**
   * Turn slots beyond HUB_WORKER_CONCURRENCY that a tenant below its share of the worker may
   * borrow while another tenant's turns fill it (they are paid back as those end): a turn is
   * never preempted, so without them a newcomer waits for a busy tenant's turn to end.
   * -1 (default): half of HUB_WORKER_CONCURRENCY, rounded up; 0: off.
   */
  HUB_WORKER_BURST_SLOTS: envInt({ min: -1, max: 10_000, default: -1 }),
  /** BullMQ lock duration: a stalled turn is taken over by another worker after this long. */
  HUB_WORKER_LOCK_MS: envInt({ min: 1000, max: INT32_MAX, default: 30_000 }),
  /**
   * How often a worker looks for turns the log says run but no queue holds (Redis lost them)
   * and schedules them again; it also looks at start. A turn is recovered within about this
   * plus HUB_WORKER_LOCK_MS of going quiet.
   */
  HUB_RECONCILE_INTERVAL_MS: envInt({ min: 500, max: INT32_MAX, default: 30_000 }),
  /** Port of the worker's /health endpoint; 0 turns it off. */
  HUB_WORKER_HEALTH_PORT: envInt({ min: 0, max: PORT_MAX, default: 0 }),
  HUB_MODEL_PROVIDER: envEnum(MODEL_PROVIDERS, { default: 'offline' }),
  HUB_MODEL: envOptionalString('a model name (or unset for the provider default)'),
  HUB_MODEL_BASE_URL: envOptionalUrl(['http', 'https']),
  HUB_MODEL_API_KEY: envOptionalString('an API key (or unset)'),
  /** Delay between streamed chunks of the offline model; 0 for benchmarks. */
  HUB_OFFLINE_DELAY_MS: envInt({ min: 0, max: 60_000, default: 15 }),
  /** ReAct steps (model calls) per turn before the turn fails as exhausted. */
  HUB_MAX_STEPS: envInt({ min: 1, max: 1000, default: 8 }),
  /** How long an approval may wait; 0 means no deadline. */
  HUB_APPROVAL_TTL_MS: envInt({ min: 0, max: INT32_MAX, default: 0 }),
  /**
   * Streamed model text is written to the log at most once per this many ms of output (one
   * `TextDelta` per window, or sooner when a window's text reaches its size cap).
   */
  HUB_TEXT_FLUSH_MS: envInt({ min: 1, max: 10_000, default: 50 }),
  /**
   * The widest the window grows while many turns stream in one worker (ADR 0031): up to 50
   * streaming turns each keeps HUB_TEXT_FLUSH_MS; past that it grows in proportion, up to this.
   */
  HUB_TEXT_FLUSH_MAX_MS: envInt({ min: 1, max: 10_000, default: 250 }),
  /** The hub's public base URL: what approval links and console links in webhooks point at. */
  HUB_PUBLIC_URL: envUrl(['http', 'https'], { default: 'http://127.0.0.1:8080' }),
  /**
   * Delays before each retry of a failed webhook delivery, comma-separated, each a number and
   * ms, s, m, h or d. After the last, the message is given up (status failed).
   */
  HUB_WEBHOOK_RETRY_SCHEDULE: envString({
    default: '5s,5m,30m,2h,5h,10h,10h',
    pattern: /^\s*\d+(\.\d+)?(ms|s|m|h|d)(\s*,\s*\d+(\.\d+)?(ms|s|m|h|d))*\s*$/,
    expected: 'comma-separated delays like 5s,5m,30m,2h',
  }),
  /** A webhook attempt's whole answer must come within this; later, it failed (and its endpoint held nothing else up). */
  HUB_WEBHOOK_TIMEOUT_MS: envInt({ min: 100, max: 300_000, default: 15_000 }),
  /** How often each worker's webhook outbox and dispatcher look for work. */
  HUB_WEBHOOK_POLL_MS: envInt({ min: 10, max: 60_000, default: 250 }),
  /** Attempts one worker makes to one endpoint at once. */
  HUB_WEBHOOK_ENDPOINT_CONCURRENCY: envInt({ min: 1, max: 100, default: 4 }),
  /** An endpoint failing every attempt for this long is disabled, with the reason on the endpoint. */
  HUB_WEBHOOK_DISABLE_AFTER_MS: envInt({ min: 1000, max: Number.MAX_SAFE_INTEGER, default: 5 * 86_400_000 }),
  /** How long an approval link lives when its approval has no deadline (with one, it ends at the deadline). */
  HUB_APPROVAL_LINK_TTL_MS: envInt({ min: 1000, max: Number.MAX_SAFE_INTEGER, default: 7 * 86_400_000 }),
});
export type WorkerConfig = z.output<typeof WorkerConfig>;

/** The `hub` command: stdio bridges, admin, replay, migrate. */
export const CliConfig = z.object({
  ...sharedShape('hub-cli'),
  /**
   * The role that owns the tables, for `hub migrate` and `hub up` only (unset: DATABASE_URL
   * migrates). Set, DATABASE_URL is the apps' own login role, kept apart from the owner so
   * row-level security holds them: `hub migrate` also makes sure that role exists and is in
   * `hub_app`. The apps themselves never read it.
   */
  HUB_OWNER_DATABASE_URL: envOptionalUrl(['postgresql', 'postgres']),
  HUB_URL: envUrl(['http', 'https'], { default: 'http://127.0.0.1:8080' }),
  HUB_API_KEY: envOptionalString('an API key (or unset)'),
  /** `hub acp`: the longest stdin line it sends on, as ingress holds each frame to it (set both alike). */
  HUB_MAX_FRAME_BYTES: envInt({ min: 1024, max: INT32_MAX, default: 1_048_576 }),
  /** `hub up`: where it keeps the demo tenant's key and the data of the services it starts (unset: `.hub` in the checkout). */
  HUB_STATE_DIR: envOptionalString('a directory (or unset)'),
  /** The port `hub up` serves on when `--port` is not given (as ingress reads it). */
  PORT: envInt({ min: 0, max: PORT_MAX, default: 8080 }),
});
export type CliConfig = z.output<typeof CliConfig>;

/** Read by `bin/hub` itself, before any app starts: `HUB_RUN_FROM=dist` runs the production build. */
export const LAUNCHER_SETTINGS: readonly string[] = ['HUB_RUN_FROM'];

/** Every variable some hub schema reads; `parseConfig` accepts these `HUB_*` names anywhere. */
export const KNOWN_SETTINGS: readonly string[] = [
  ...new Set([IngressConfig, WorkerConfig, CliConfig].flatMap((schema) => Object.keys(schema.shape))),
  ...LAUNCHER_SETTINGS,
];

/** `HUB_MCP_STDIO_COMMANDS` as command rules (argv prefix and the environment each may get). */
export function mcpStdioAllowlist(config: Pick<IngressConfig, 'HUB_MCP_STDIO_COMMANDS'>): CommandRule[] {
  return parseCommandRules(config.HUB_MCP_STDIO_COMMANDS).rules;
}

/** `HUB_HARNESS_COMMANDS` as command rules (argv prefix and the environment each may get). */
export function harnessAllowlist(config: Pick<IngressConfig, 'HUB_HARNESS_COMMANDS'>): CommandRule[] {
  return parseCommandRules(config.HUB_HARNESS_COMMANDS).rules;
}

/** `HUB_MCP_HTTP_URLS` as a list of URL prefixes. */
export function mcpHttpAllowlist(config: Pick<IngressConfig, 'HUB_MCP_HTTP_URLS'>): string[] {
  return (config.HUB_MCP_HTTP_URLS ?? '')
    .split(';')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The BullMQ prefix. On Redis Cluster every key of a queue must hash to one slot, so the prefix
 * is wrapped in a `{...}` hash tag there.
 */
export function queuePrefix(config: Pick<IngressConfig, 'HUB_QUEUE_PREFIX'>): string {
  return config.HUB_QUEUE_PREFIX;
}

/** `host:port` entries of HUB_REDIS_SENTINELS; null for an entry that is not one. */
export function redisSentinelAddresses(value: string): ({ host: string; port: number } | null)[] {
  return value.split(',').map((entry) => {
    const m = /^([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry.trim());
    const port = Number(m?.[2]);
    return m && port > 0 && port <= 65535 ? { host: m[1].replace(/^\[|\]$/g, ''), port } : null;
  });
}

/** HUB_REDIS_SENTINELS and HUB_REDIS_SENTINEL_NAME; undefined when Redis is one server (REDIS_URL). */
export function redisSentinel(
  config: Pick<IngressConfig, 'HUB_REDIS_SENTINELS' | 'HUB_REDIS_SENTINEL_NAME'>,
): { sentinels: { host: string; port: number }[]; name: string } | undefined {
  if (!config.HUB_REDIS_SENTINELS) return undefined;
  return { sentinels: redisSentinelAddresses(config.HUB_REDIS_SENTINELS).filter((a) => a !== null), name: config.HUB_REDIS_SENTINEL_NAME };
}
