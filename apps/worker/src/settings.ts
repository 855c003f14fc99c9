import { WorkerConfig, childProcessBaseEnv, harnessAllowlist, mcpHttpAllowlist, mcpStdioAllowlist, parseConfig, queuePrefix } from '@hub/config';

/** What the worker reads from its environment, parsed once at boot. */
export interface WorkerSettings {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  concurrency: number;
  lockMs: number;
  healthPort: number;
  model: { provider: 'offline' | 'openai' | 'anthropic'; model?: string; baseUrl?: string; apiKey?: string; offlineDelayMs: number };
  maxSteps: number;
  approvalTtlMs: number;
  /** Command prefixes a tenant's stdio MCP server may run (`HUB_MCP_STDIO_COMMANDS`); empty: none. */
  mcpStdioAllowlist: string[][];
  /** URL prefixes a tenant's HTTP MCP server may live under (`HUB_MCP_HTTP_URLS`); empty: none. */
  mcpHttpAllowlist: string[];
  /** Command prefixes a wrapped harness may run (`HUB_HARNESS_COMMANDS`); empty: none. */
  harnessAllowlist: string[][];
  /** What a wrapped harness process starts from (PATH, HOME, ...): never the hub's own settings. */
  harnessBaseEnv: Record<string, string>;
  telemetry: { serviceName: string; exporter: 'otlp' | 'console' | 'none'; otlpEndpoint?: string };
}

export function loadWorkerSettings(env?: NodeJS.ProcessEnv): WorkerSettings {
  const c = parseConfig(WorkerConfig, env);
  return {
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    queuePrefix: queuePrefix(c),
    concurrency: c.HUB_WORKER_CONCURRENCY,
    lockMs: c.HUB_WORKER_LOCK_MS,
    healthPort: c.HUB_WORKER_HEALTH_PORT,
    model: { provider: c.HUB_MODEL_PROVIDER, model: c.HUB_MODEL, baseUrl: c.HUB_MODEL_BASE_URL, apiKey: c.HUB_MODEL_API_KEY, offlineDelayMs: c.HUB_OFFLINE_DELAY_MS },
    maxSteps: c.HUB_MAX_STEPS,
    approvalTtlMs: c.HUB_APPROVAL_TTL_MS,
    mcpStdioAllowlist: mcpStdioAllowlist(c),
    mcpHttpAllowlist: mcpHttpAllowlist(c),
    harnessAllowlist: harnessAllowlist(c),
    harnessBaseEnv: childProcessBaseEnv(env),
    telemetry: { serviceName: c.OTEL_SERVICE_NAME, exporter: c.OTEL_TRACES_EXPORTER, otlpEndpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT },
  };
}
