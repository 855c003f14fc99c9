import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseConfig, type ConfigSchema } from './parse';
import { CliConfig, IngressConfig, WorkerConfig } from './schemas';

// Ties docker-compose.yml to the code: a setting the apps do not read, or a value they reject,
// fails here rather than at `docker compose up`.
const ROOT = join(__dirname, '..', '..', '..');

const Service = z.object({
  image: z.string(),
  command: z.array(z.string()).optional(),
  container_name: z.string().optional(),
  ports: z.array(z.union([z.string(), z.number(), z.record(z.string(), z.unknown())])).optional(),
  environment: z.union([z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])), z.array(z.string())]).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  healthcheck: z.object({ test: z.union([z.string(), z.array(z.string())]) }).optional(),
  profiles: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
});
type Service = z.infer<typeof Service>;
const ComposeFile = z.object({ services: z.record(z.string(), Service) });

const compose = ComposeFile.parse(parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

function service(name: string): Service {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** Compose interpolation as it resolves with an empty host environment: `${X:-d}` → d. */
function interpolate(value: string): string {
  return value.replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    if (fallback === undefined) throw new Error(`\${${name}} has no default; compose up would need it set`);
    return fallback;
  });
}

function environmentOf(name: string): Record<string, string> {
  const env = service(name).environment ?? {};
  const pairs = Array.isArray(env)
    ? env.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
    : Object.entries(env).map(([key, value]) => [key, String(value)]);
  return Object.fromEntries(pairs.map(([key, value]) => [key, interpolate(value)]));
}

function majorOf(image: string): number {
  const tag = /:(\d+)/.exec(image);
  if (tag === null) throw new Error(`${image} pins no major version`);
  return Number(tag[1]);
}

describe('docker-compose.yml', () => {
  it('the observability profile runs a collector, Prometheus and Grafana on files that exist', () => {
    for (const name of ['otel-collector', 'prometheus', 'grafana']) {
      expect(service(name).profiles).toEqual(['observability']);
      // Each mounts its configuration from the repository: those files must be there.
      const files = (service(name).volumes ?? []).map((mount) => mount.split(':')[0] ?? '').filter((source) => source.startsWith('./'));
      expect([name, files.length > 0]).toEqual([name, true]);
      for (const source of files) expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
    }
    expect(environmentOf('ingress').OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
  });

  it.each(['postgres', 'redis', 'migrate', 'ingress', 'worker'])('has a %s service', (name) => {
    expect(compose.services[name]).toBeDefined();
  });

  it('runs each hub role through bin/hub', () => {
    expect(dockerfile).toMatch(/^FROM node:24-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/app\/bin\/hub"\]$/m);
    expect(service('migrate').command).toEqual(['migrate']);
    expect(service('ingress').command).toEqual(['ingress']);
    expect(service('worker').command).toEqual(['worker']);
  });

  it('lets the worker scale: no container_name, no host ports', () => {
    expect(service('worker').container_name).toBeUndefined();
    expect(service('worker').ports ?? []).toEqual([]);
  });

  it.each([
    ['migrate', CliConfig],
    ['ingress', IngressConfig],
    ['worker', WorkerConfig],
  ] as const)('%s sets only variables its config schema reads, with valid values', (name, schema: ConfigSchema) => {
    const env = environmentOf(name);
    expect(Object.keys(env).filter((key) => !(key in schema.shape))).toEqual([]);
    expect(() => parseConfig(schema, env, { alsoKnown: [] })).not.toThrow();
  });

  it('points the apps at the compose stores', () => {
    for (const name of ['migrate', 'ingress', 'worker']) {
      expect(new URL(environmentOf(name)['DATABASE_URL'] ?? '').hostname).toBe('postgres');
    }
    for (const name of ['ingress', 'worker']) {
      expect(new URL(environmentOf(name)['REDIS_URL'] ?? '').hostname).toBe('redis');
    }
    expect(environmentOf('worker')['HUB_MODEL_PROVIDER']).toBe('offline');
  });

  it("migrates as the tables' owner and runs the apps as a login of their own (row-level security)", () => {
    const migrate = environmentOf('migrate');
    const owner = new URL(migrate['HUB_OWNER_DATABASE_URL'] ?? '');
    for (const name of ['migrate', 'ingress', 'worker']) {
      const app = new URL(environmentOf(name)['DATABASE_URL'] ?? '');
      expect(app.username).not.toBe(owner.username);
      expect(`${app.host}${app.pathname}`).toBe(`${owner.host}${owner.pathname}`);
    }
    for (const name of ['ingress', 'worker']) expect(environmentOf(name)['HUB_OWNER_DATABASE_URL']).toBeUndefined();
  });

  it('publishes the port ingress listens on', () => {
    const port = parseConfig(IngressConfig, environmentOf('ingress'), { alsoKnown: [] }).PORT;
    expect(service('ingress').ports).toContain(`${port}:${port}`);
  });

  it('starts the apps only after migration succeeded and the stores are healthy', () => {
    expect(service('migrate').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['ingress', 'worker']) {
      expect(service(name).depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
      });
    }
    expect(service('postgres').healthcheck?.test.toString()).toContain('pg_isready');
    // The apps' own health checks hit the ports their settings open.
    expect(service('ingress').healthcheck?.test.toString()).toContain(
      `127.0.0.1:${parseConfig(IngressConfig, environmentOf('ingress'), { alsoKnown: [] }).PORT}/health`,
    );
    expect(service('worker').healthcheck?.test.toString()).toContain(
      `127.0.0.1:${parseConfig(WorkerConfig, environmentOf('worker'), { alsoKnown: [] }).HUB_WORKER_HEALTH_PORT}/health`,
    );
    expect(service('redis').healthcheck?.test.toString()).toContain('ping');
  });

  it('uses store images the hub supports (Postgres 15+, Redis 7+)', () => {
    expect(majorOf(service('postgres').image)).toBeGreaterThanOrEqual(15);
    expect(majorOf(service('redis').image)).toBeGreaterThanOrEqual(7);
  });
});
