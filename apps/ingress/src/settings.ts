import { IngressConfig, harnessAllowlist, mcpHttpAllowlist, mcpStdioAllowlist, parseConfig, queuePrefix } from '@hub/config';

/** The settings ingress code reads; derived once from the parsed environment. */
export interface IngressSettings {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  maxFrameBytes: number;
  maxBodyBytes: number;
  commandTimeoutMs: number;
  /** How long an ACP client has to answer a permission request (`HUB_ACP_PERMISSION_TIMEOUT_MS`). */
  acpPermissionTimeoutMs: number;
  /** Command prefixes a tenant's stdio MCP server may run (`HUB_MCP_STDIO_COMMANDS`); empty: none. */
  mcpStdioAllowlist: string[][];
  /** URL prefixes a tenant's HTTP MCP server may live under (`HUB_MCP_HTTP_URLS`); empty: none. */
  mcpHttpAllowlist: string[];
  /** Command prefixes an OpenEnv environment's wrapped harness may run (`HUB_HARNESS_COMMANDS`); empty: none. */
  harnessAllowlist: string[][];
  telemetry: { serviceName: string; exporter: 'otlp' | 'console' | 'none'; otlpEndpoint?: string };
}

export function loadIngressSettings(env?: NodeJS.ProcessEnv): IngressSettings {
  const c = parseConfig(IngressConfig, env);
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    queuePrefix: queuePrefix(c),
    maxFrameBytes: c.HUB_MAX_FRAME_BYTES,
    maxBodyBytes: c.HUB_MAX_BODY_BYTES,
    commandTimeoutMs: c.HUB_COMMAND_TIMEOUT_MS,
    acpPermissionTimeoutMs: c.HUB_ACP_PERMISSION_TIMEOUT_MS,
    mcpStdioAllowlist: mcpStdioAllowlist(c),
    mcpHttpAllowlist: mcpHttpAllowlist(c),
    harnessAllowlist: harnessAllowlist(c),
    telemetry: { serviceName: c.OTEL_SERVICE_NAME, exporter: c.OTEL_TRACES_EXPORTER, otlpEndpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT },
  };
}
