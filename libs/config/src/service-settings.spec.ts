// Ingress and worker both spread serviceSettings: the shared variables must map the same way for both.
import { parseConfig } from './parse';
import { IngressConfig, WorkerConfig } from './schemas';
import { serviceSettings } from './service-settings';

describe('serviceSettings', () => {
  const env = {
    DATABASE_URL: 'postgresql://db.internal:5432/hub',
    REDIS_URL: 'redis://cache.internal:6379',
    HUB_QUEUE_PREFIX: 'prod',
    HUB_REDIS_SENTINELS: 'sentinel-a:26379,sentinel-b:26379',
    HUB_MCP_STDIO_COMMANDS: 'node /opt/mcp/a.js env:REGION,NODE_ENV=production; uvx tool',
    HUB_MCP_HTTP_URLS: 'https://mcp.example.com/ ; https://other.example.com/x/',
    HUB_HARNESS_COMMANDS: 'codex-acp',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    LOG_LEVEL: 'debug',
  };

  it.each([
    ['ingress', IngressConfig, 'hub-ingress'],
    ['worker', WorkerConfig, 'hub-worker'],
  ] as const)('derives the shared settings of %s', (_, schema, serviceName) => {
    expect(serviceSettings(parseConfig(schema, env))).toEqual({
      databaseUrl: 'postgresql://db.internal:5432/hub',
      redisUrl: 'redis://cache.internal:6379',
      queuePrefix: 'prod',
      redisSentinel: {
        name: 'mymaster',
        sentinels: [
          { host: 'sentinel-a', port: 26379 },
          { host: 'sentinel-b', port: 26379 },
        ],
      },
      snapshotEvery: 500,
      dbPoolSize: 10,
      fairScheduling: true,
      mcpStdioAllowlist: [
        { prefix: ['node', '/opt/mcp/a.js'], fixedEnv: { NODE_ENV: 'production' }, tenantEnv: ['REGION'] },
        { prefix: ['uvx', 'tool'], fixedEnv: {}, tenantEnv: [] },
      ],
      mcpHttpAllowlist: ['https://mcp.example.com/', 'https://other.example.com/x/'],
      harnessAllowlist: [{ prefix: ['codex-acp'], fixedEnv: {}, tenantEnv: [] }],
      telemetry: { serviceName, exporter: 'otlp', otlpEndpoint: 'http://collector:4318' },
      logLevel: 'debug',
    });
  });
});
