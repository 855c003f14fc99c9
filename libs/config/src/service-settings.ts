import type { CommandRule } from './command-rules';
import {
  harnessAllowlist,
  mcpHttpAllowlist,
  mcpStdioAllowlist,
  LOG_LEVELS,
  queuePrefix,
  redisSentinel,
  TRACE_EXPORTERS,
  type IngressConfig,
  type WorkerConfig,
} from './schemas';

/**
 * The settings every long-running hub process derives from the shared variables (stores,
 * queue, allowlists, traces), in one place so ingress and worker cannot read them differently.
 * Each app spreads this into its own settings and adds what only it reads.
 */
export interface ServiceSettings {
  databaseUrl: string;
  redisUrl: string;
  /** `HUB_REDIS_SENTINELS`: Redis through Sentinel (every client asks them for the primary); unset: REDIS_URL is the server. */
  redisSentinel: { sentinels: { host: string; port: number }[]; name: string } | undefined;
  queuePrefix: string;
  /** `HUB_FAIR_SCHEDULING`: tenants served round-robin on the queues. */
  fairScheduling: boolean;
  /** Command prefixes a tenant's stdio MCP server may run (`HUB_MCP_STDIO_COMMANDS`); empty: none. */
  mcpStdioAllowlist: CommandRule[];
  /** URL prefixes a tenant's HTTP MCP server may live under (`HUB_MCP_HTTP_URLS`); empty: none. */
  mcpHttpAllowlist: string[];
  /** Command prefixes a wrapped harness may run (`HUB_HARNESS_COMMANDS`); empty: none. */
  harnessAllowlist: CommandRule[];
  telemetry: { serviceName: string; exporter: (typeof TRACE_EXPORTERS)[number]; otlpEndpoint?: string };
  /** Events after a session's snapshot before the next is written (`HUB_SNAPSHOT_EVERY`). */
  snapshotEvery: number;
  /** `HUB_DB_POOL_SIZE`: connections of the process's main Postgres pool. */
  dbPoolSize: number;
  /** `LOG_LEVEL`: the least severe line the process writes. */
  logLevel: (typeof LOG_LEVELS)[number];
}

/** A parsed configuration with the shared variables (both services' schemas have them). */
type SharedConfig = Pick<IngressConfig & WorkerConfig, keyof IngressConfig & keyof WorkerConfig>;

export function serviceSettings(c: SharedConfig): ServiceSettings {
  return {
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    redisSentinel: redisSentinel(c),
    queuePrefix: queuePrefix(c),
    fairScheduling: c.HUB_FAIR_SCHEDULING,
    mcpStdioAllowlist: mcpStdioAllowlist(c),
    mcpHttpAllowlist: mcpHttpAllowlist(c),
    harnessAllowlist: harnessAllowlist(c),
    telemetry: { serviceName: c.OTEL_SERVICE_NAME, exporter: c.OTEL_TRACES_EXPORTER, otlpEndpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT },
    snapshotEvery: c.HUB_SNAPSHOT_EVERY,
    dbPoolSize: c.HUB_DB_POOL_SIZE,
    logLevel: c.LOG_LEVEL,
  };
}
