import { ConfigError } from './errors';
import { parseConfig } from './parse';
import { closestName, editDistance } from './suggest';
import { CliConfig, IngressConfig, WorkerConfig } from './schemas';

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('lists every bad variable by name with what was expected and what was given', () => {
    const error = errorOf(() => parseConfig(WorkerConfig, { PORT: 'ignored', HUB_MODEL_PROVIDER: 'gpt', HUB_WORKER_CONCURRENCY: 'abc', LOG_LEVEL: 'loud' }));
    expect(error.message).toContain('Invalid configuration:\n');
    expect(error.message).toContain('  HUB_MODEL_PROVIDER: expected one of offline|openai|anthropic, got "gpt"');
    expect(error.message).toContain('  HUB_WORKER_CONCURRENCY: expected an integer between 1 and 10000, got "abc"');
    expect(error.message).toContain('  LOG_LEVEL: expected one of trace|debug|info|warn|error|fatal|silent, got "loud"');
    expect(error.problems.map((p) => p.name).sort()).toEqual(['HUB_MODEL_PROVIDER', 'HUB_WORKER_CONCURRENCY', 'LOG_LEVEL']);
  });

  it('matches the documented example for ingress', () => {
    const error = errorOf(() => parseConfig(IngressConfig, { PORT: 'abc' }));
    expect(error.message).toBe('Invalid configuration:\n  PORT: expected an integer between 0 and 65535, got "abc"');
  });

  it('never echoes the value of a secret', () => {
    const secret = 'sk-live-0123456789';
    const error = errorOf(() => parseConfig(WorkerConfig, { HUB_MODEL_API_KEY: '  ', HUB_MODEL_PROVIDER: secret }));
    expect(error.message).toContain('HUB_MODEL_API_KEY: expected an API key (or unset), got <redacted>');
    const cli = errorOf(() => parseConfig(CliConfig, { HUB_API_KEY: ' ', HUB_URL: 'nope' }));
    expect(cli.message).toContain('HUB_API_KEY: expected an API key (or unset), got <redacted>');
    expect(cli.message).toContain('HUB_URL: expected a non-empty http or https URL, got "nope"');
  });

  it('masks a password inside a URL value', () => {
    const error = errorOf(() => parseConfig(IngressConfig, { REDIS_URL: 'postgresql://u:hunter2@db/hub' }));
    expect(error.message).toContain('REDIS_URL: expected a non-empty redis or rediss URL, got "postgresql://u:***@db/hub"');
    expect(error.message).not.toContain('hunter2');
  });

  it('says when a variable is unset', () => {
    const error = errorOf(() => parseConfig(WorkerConfig, { DATABASE_URL: '' }));
    expect(error.message).toContain('DATABASE_URL: expected a non-empty postgresql or postgres URL, got ""');
  });

  it('rejects an unknown HUB_ variable and suggests the closest name', () => {
    const error = errorOf(() => parseConfig(WorkerConfig, { HUB_MODEL_PROVIDR: 'openai', HUB_COMPLETELY_ELSE: '1' }));
    expect(error.message).toContain('  unknown setting HUB_MODEL_PROVIDR; did you mean HUB_MODEL_PROVIDER?');
    expect(error.message).toContain('  unknown setting HUB_COMPLETELY_ELSE\n');
    expect(error.message).not.toContain('HUB_COMPLETELY_ELSE;');
  });

  it('reports unknown settings together with invalid values', () => {
    const error = errorOf(() => parseConfig(IngressConfig, { PORT: '-1', HUB_MAX_FRAME_BYTE: '10' }));
    expect(error.problems).toEqual([
      { kind: 'invalid', name: 'PORT', message: 'expected an integer between 0 and 65535, got "-1"' },
      { kind: 'unknown', name: 'HUB_MAX_FRAME_BYTE', message: 'unknown setting HUB_MAX_FRAME_BYTE; did you mean HUB_MAX_FRAME_BYTES?' },
    ]);
  });

  it("accepts other hub processes' settings by default, and only the schema's own when told", () => {
    const env = { HUB_MODEL_PROVIDER: 'openai' };
    expect(parseConfig(IngressConfig, env).PORT).toBe(8080);
    const strict = errorOf(() => parseConfig(IngressConfig, env, { alsoKnown: [] }));
    expect(strict.message).toContain('unknown setting HUB_MODEL_PROVIDER');
  });

  it('ignores the variables Kubernetes injects for a Service named hub (or hub-*)', () => {
    const k8s = {
      HUB_SERVICE_HOST: '10.0.0.7',
      HUB_SERVICE_PORT: '8080',
      HUB_SERVICE_PORT_HTTP: '8080',
      HUB_PORT: 'tcp://10.0.0.7:8080',
      HUB_PORT_8080_TCP: 'tcp://10.0.0.7:8080',
      HUB_PORT_8080_TCP_PROTO: 'tcp',
      HUB_PORT_8080_TCP_PORT: '8080',
      HUB_PORT_8080_TCP_ADDR: '10.0.0.7',
      HUB_WORKER_SERVICE_HOST: '10.0.0.8',
      HUB_WORKER_PORT_9090_TCP_ADDR: '10.0.0.8',
    };
    expect(() => parseConfig(WorkerConfig, { DATABASE_URL: 'postgresql://h/db', REDIS_URL: 'redis://h:6379', ...k8s })).not.toThrow();
    // Only those shapes: a near-miss of a real setting is still caught.
    expect(errorOf(() => parseConfig(WorkerConfig, { HUB_SERVICE_HOSTS: 'x' })).message).toContain('unknown setting HUB_SERVICE_HOSTS');
  });

  it('ignores variables that are not HUB_ settings', () => {
    expect(() => parseConfig(CliConfig, { PATH: '/bin', HUBBLE: 'x', NODE_OPTIONS: '' })).not.toThrow();
  });
});

describe('suggestions', () => {
  it('measures edit distance', () => {
    expect(editDistance('HUB_FOO', 'HUB_FOOO')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests only plausible typos', () => {
    expect(closestName('HUB_FOO', ['HUB_FOOO', 'HUB_BAR'])).toBe('HUB_FOOO');
    expect(closestName('HUB_XYZ', ['HUB_MAX_STEPS'])).toBeUndefined();
  });
});
