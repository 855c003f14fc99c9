import { parseConfig } from './parse';
import { CliConfig, IngressConfig, KNOWN_SETTINGS, WorkerConfig, queuePrefix, redisSentinel } from './schemas';

describe('defaults', () => {
  it('gives ingress a working local setup with no environment', () => {
    expect(parseConfig(IngressConfig, {})).toEqual({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/hub',
      REDIS_URL: 'redis://127.0.0.1:6379',
      HUB_QUEUE_PREFIX: 'hub',
      HUB_REDIS_CLUSTER: false,
      HUB_REDIS_SENTINEL_NAME: 'mymaster',
      HUB_SNAPSHOT_EVERY: 500,
      HUB_DB_POOL_SIZE: 10,
      HUB_FAIR_SCHEDULING: true,
      LOG_LEVEL: 'info',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'hub-ingress',
      PORT: 8080,
      HOST: '0.0.0.0',
      HUB_MAX_FRAME_BYTES: 1_048_576,
      HUB_OIDC_API_KEY_CONSOLE: true,
      HUB_OIDC_GROUPS_CLAIM: 'groups',
      HUB_OIDC_NAME: 'your identity provider',
      HUB_OIDC_SCOPES: 'openid profile email',
      HUB_OIDC_SESSION_SECONDS: 900,
      HUB_MAX_BODY_BYTES: 1_048_576,
      HUB_COMMAND_TIMEOUT_MS: 10_000,
      HUB_ACP_PERMISSION_TIMEOUT_MS: 120_000,
      HUB_WS_MAX_SOCKETS: 10_000,
      HUB_WS_MAX_BUFFERED_BYTES: 1_048_576,
      HUB_KEY_RECHECK_MS: 2_000,
      HUB_SOCKET_LEASE_MS: 30_000,
      HUB_SCHEDULE_POLL_MS: 1_000,
      HUB_HTTP_HEADERS_TIMEOUT_MS: 15_000,
      HUB_HTTP_REQUEST_TIMEOUT_MS: 60_000,
      HUB_WEBHOOK_ROTATION_OVERLAP_MS: 86_400_000,
    });
  });

  it('gives the worker the offline model and its limits', () => {
    const config = parseConfig(WorkerConfig, {});
    expect(config).toMatchObject({
      OTEL_SERVICE_NAME: 'hub-worker',
      HUB_WORKER_CONCURRENCY: 1000,
      HUB_DB_POOL_SIZE: 10,
      HUB_TEXT_FLUSH_MS: 50,
      HUB_TEXT_FLUSH_MAX_MS: 250,
      HUB_WORKER_BURST_SLOTS: -1,
      HUB_WORKER_LOCK_MS: 30_000,
      HUB_WORKER_HEALTH_PORT: 0,
      HUB_MODEL_PROVIDER: 'offline',
      HUB_OFFLINE_DELAY_MS: 15,
      HUB_MAX_STEPS: 8,
      HUB_APPROVAL_TTL_MS: 0,
      HUB_PUBLIC_URL: 'http://127.0.0.1:8080',
      HUB_WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m,2h,5h,10h,10h',
      HUB_WEBHOOK_TIMEOUT_MS: 15_000,
    });
    expect(config.HUB_WEBHOOK_ALLOWED_NETWORKS).toBeUndefined();
    expect(config.HUB_MODEL).toBeUndefined();
    expect(config.HUB_MODEL_BASE_URL).toBeUndefined();
    expect(config.HUB_MODEL_API_KEY).toBeUndefined();
  });

  it('points the CLI at a local ingress', () => {
    const config = parseConfig(CliConfig, {});
    expect(config.HUB_URL).toBe('http://127.0.0.1:8080');
    expect(config.OTEL_SERVICE_NAME).toBe('hub-cli');
    expect(config.HUB_API_KEY).toBeUndefined();
  });
});

describe('coercion', () => {
  it('parses integers from strings', () => {
    const config = parseConfig(IngressConfig, { PORT: ' 3000 ', HUB_COMMAND_TIMEOUT_MS: '250' });
    expect(config.PORT).toBe(3000);
    expect(config.HUB_COMMAND_TIMEOUT_MS).toBe(250);
  });

  it.each(['false', '0', 'FALSE'])('accepts HUB_REDIS_CLUSTER=%s (off)', (raw) => {
    expect(parseConfig(WorkerConfig, { HUB_REDIS_CLUSTER: raw }).HUB_REDIS_CLUSTER).toBe(false);
  });

  it.each(['true', '1'])('refuses HUB_REDIS_CLUSTER=%s: Redis Cluster is not supported, and says what is', (raw) => {
    expect(() => parseConfig(WorkerConfig, { HUB_REDIS_CLUSTER: raw })).toThrow('HUB_REDIS_CLUSTER: Redis Cluster is not supported');
    expect(() => parseConfig(IngressConfig, { HUB_REDIS_CLUSTER: raw })).toThrow('HUB_REDIS_SENTINELS');
  });

  it('reads the Redis Sentinels and the name of their primary', () => {
    const c = parseConfig(IngressConfig, { HUB_REDIS_SENTINELS: 'sentinel-a:26379, 10.0.0.2:26380,[::1]:5000', HUB_REDIS_SENTINEL_NAME: 'hub' });
    expect(redisSentinel(c)).toEqual({
      name: 'hub',
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: '::1', port: 5000 },
      ],
    });
    expect(redisSentinel(parseConfig(IngressConfig, {}))).toBeUndefined();
  });

  it.each(['sentinel-a', 'a:0', 'a:26379,', 'a:70000'])('rejects HUB_REDIS_SENTINELS=%j', (raw) => {
    expect(() => parseConfig(WorkerConfig, { HUB_REDIS_SENTINELS: raw })).toThrow(
      'HUB_REDIS_SENTINELS: expected comma-separated host:port of the Redis Sentinels',
    );
  });

  it.each(['1.5', '', '65536', '8080abc'])('rejects PORT=%j', (raw) => {
    expect(() => parseConfig(IngressConfig, { PORT: raw })).toThrow('PORT: expected an integer between 0 and 65535');
  });

  it('treats empty optional settings as unset but keeps set ones', () => {
    const config = parseConfig(WorkerConfig, {
      HUB_MODEL: '',
      HUB_MODEL_BASE_URL: '',
      HUB_MODEL_API_KEY: 'sk-1',
      HUB_OFFLINE_DELAY_MS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(config.HUB_MODEL).toBeUndefined();
    expect(config.HUB_MODEL_BASE_URL).toBeUndefined();
    expect(config.HUB_MODEL_API_KEY).toBe('sk-1');
    expect(config.HUB_OFFLINE_DELAY_MS).toBe(0);
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://collector:4318');
  });

  it('rejects empty required URLs instead of falling back to the default', () => {
    expect(() => parseConfig(CliConfig, { HUB_URL: '' })).toThrow('HUB_URL: expected a non-empty http or https URL, got ""');
    expect(() => parseConfig(CliConfig, { REDIS_URL: '' })).toThrow('REDIS_URL');
  });
});

describe('queuePrefix', () => {
  it('is HUB_QUEUE_PREFIX (no hash tag: Redis Cluster is not supported)', () => {
    expect(queuePrefix(parseConfig(WorkerConfig, { HUB_QUEUE_PREFIX: 'prod' }))).toBe('prod');
  });
});

describe('KNOWN_SETTINGS', () => {
  it('holds the names of every app schema', () => {
    expect(KNOWN_SETTINGS).toEqual(expect.arrayContaining(['PORT', 'HUB_MODEL_PROVIDER', 'HUB_URL', 'DATABASE_URL']));
    expect(new Set(KNOWN_SETTINGS).size).toBe(KNOWN_SETTINGS.length);
  });
});
