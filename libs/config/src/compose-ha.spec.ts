import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseConfig, type ConfigSchema } from './parse';
import { CliConfig, IngressConfig, WorkerConfig, redisSentinel } from './schemas';

// docker-compose.ha.yml cannot be started here (no Docker on the machines that run the suite), so
// this checks what can be checked without it: the topology the HA suite runs as processes
// (tools/ha), every hub setting against the config schemas, and the files the services mount or build.
const ROOT = join(__dirname, '..', '..', '..');

const Service = z.object({
  image: z.string().optional(),
  build: z.string().optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  volumes: z.array(z.string()).optional(),
  ports: z.array(z.string()).optional(),
});
type Service = z.infer<typeof Service>;

const compose = z
  .object({ services: z.record(z.string(), Service), volumes: z.record(z.string(), z.unknown()) })
  .parse(parse(readFileSync(join(ROOT, 'docker-compose.ha.yml'), 'utf8'), { merge: true }));
const haproxyCfg = readFileSync(join(ROOT, 'deploy/ha/haproxy.cfg'), 'utf8');
const patroni = parse(readFileSync(join(ROOT, 'deploy/ha/patroni/patroni.yml'), 'utf8')) as {
  scope: string;
  restapi: { listen: string };
  etcd3: { hosts: string };
  bootstrap: { dcs: { synchronous_mode: boolean; retry_timeout: number; postgresql: { parameters: Record<string, unknown> } }; post_bootstrap: string };
  postgresql: { listen: string };
};

function service(name: string): Service {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`docker-compose.ha.yml has no service ${name}`);
  return found;
}

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service(name).environment ?? {}).map(([key, value]) => [key, String(value).replace(/\$\{\w+:-([^}]*)\}/g, (_, d: string) => d)]),
  );
}

const sentinels = Object.keys(compose.services).filter((name) => name.startsWith('sentinel-'));
const patroniNodes = Object.keys(compose.services).filter((name) => /^pg-\d$/.test(name));
const etcds = Object.keys(compose.services).filter((name) => name.startsWith('etcd-'));

describe('docker-compose.ha.yml', () => {
  it('has the HA suite topology: three etcd members, two Patroni nodes, HAProxy, two Redis servers, three Sentinels, and the hub', () => {
    expect({ etcds, patroniNodes, sentinels }).toEqual({
      etcds: ['etcd-1', 'etcd-2', 'etcd-3'],
      patroniNodes: ['pg-1', 'pg-2'],
      sentinels: ['sentinel-1', 'sentinel-2', 'sentinel-3'],
    });
    for (const name of ['haproxy', 'redis-1', 'redis-2', 'migrate', 'ingress', 'worker'])
      expect([name, compose.services[name] !== undefined]).toEqual([name, true]);
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

  it('Postgres: the apps and the migration reach the primary through HAProxy, which routes by Patroni GET /primary and cuts a demoted node’s sessions', () => {
    const bind = /^listen primary\n {2}bind \*:(\d+)$/m.exec(haproxyCfg);
    expect(bind).not.toBeNull();
    for (const name of ['migrate', 'ingress', 'worker']) {
      const url = new URL(environmentOf(name)['DATABASE_URL'] ?? '');
      expect([name, url.hostname, url.port]).toEqual([name, 'haproxy', bind?.[1]]);
    }
    expect(new URL(environmentOf('migrate')['HUB_OWNER_DATABASE_URL'] ?? '').hostname).toBe('haproxy');
    expect(haproxyCfg).toMatch(/option httpchk GET \/primary\n {2}http-check expect status 200/);
    expect(haproxyCfg).toMatch(/default-server .*on-marked-down shutdown-sessions/);
    const restPort = patroni.restapi.listen.split(':')[1];
    const pgPort = patroni.postgresql.listen.split(':')[1];
    for (const node of patroniNodes) {
      expect(haproxyCfg).toContain(`server ${node} ${node}:${pgPort} check port ${restPort}`);
      // Each node announces the addresses HAProxy and its peer use.
      expect(environmentOf(node)).toMatchObject({
        PATRONI_NAME: node,
        PATRONI_RESTAPI_CONNECT_ADDRESS: `${node}:${restPort}`,
        PATRONI_POSTGRESQL_CONNECT_ADDRESS: `${node}:${pgPort}`,
      });
    }
    // HAProxy is healthy only with a primary behind it, and the migration waits for that.
    expect(haproxyCfg).toMatch(/monitor fail if \{ nbsrv\(primary\) lt 1 \}/);
    expect(service('migrate').depends_on).toEqual({ haproxy: { condition: 'service_healthy' } });
  });

  it('Patroni keeps a synchronous standby, its store is the etcd members, and it creates the database the hub names', () => {
    expect(patroni.bootstrap.dcs.synchronous_mode).toBe(true);
    // A partitioned primary's WAL sender is gone before Patroni's demotion (the HA suite's partition case).
    const walSenderTimeout = String(patroni.bootstrap.dcs.postgresql.parameters['wal_sender_timeout'] ?? '60s');
    expect(walSenderTimeout).toMatch(/^\d+s$/);
    expect(parseInt(walSenderTimeout, 10)).toBeLessThanOrEqual(patroni.bootstrap.dcs.retry_timeout);
    expect(patroni.etcd3.hosts.split(',')).toEqual(etcds.map((e) => `${e}:2379`));
    const cluster = environmentOf('etcd-1')['ETCD_INITIAL_CLUSTER'] ?? '';
    expect(cluster.split(',').map((m) => m.split('=')[0])).toEqual(etcds);
    const database = new URL(environmentOf('ingress')['DATABASE_URL'] ?? '').pathname.slice(1);
    expect(readFileSync(join(ROOT, 'deploy/ha/patroni', 'post-bootstrap.sh'), 'utf8')).toContain(`CREATE DATABASE ${database}`);
    expect(patroni.bootstrap.post_bootstrap).toBe('/etc/patroni/post-bootstrap.sh');
    const dockerfile = readFileSync(join(ROOT, service('pg-1').build ?? '', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM postgres:15/m);
    expect(dockerfile).toMatch(/apt-get install .*patroni/);
    expect(dockerfile).toMatch(/^COPY patroni.yml post-bootstrap.sh \/etc\/patroni\/$/m);
  });

  it('Redis: the apps ask the three Sentinels for the primary they monitor (quorum 2), both servers keep AOF and noeviction', () => {
    for (const [name, schema] of [
      ['ingress', IngressConfig],
      ['worker', WorkerConfig],
    ] as const) {
      const settings = redisSentinel(parseConfig(schema, environmentOf(name), { alsoKnown: [] }) as IngressConfig);
      expect(settings?.sentinels).toEqual(sentinels.map((host) => ({ host, port: 26379 })));
      for (const s of sentinels) expect(String(service(s).command)).toContain(`sentinel monitor ${settings?.name} redis-1 6379 2`);
    }
    for (const s of sentinels) expect(String(service(s).command)).toMatch(/port 26379\\nsentinel resolve-hostnames yes\\nsentinel announce-hostnames yes/);
    for (const r of ['redis-1', 'redis-2'])
      expect(service(r).command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    expect((service('redis-2').command as string[]).join(' ')).toContain('--replicaof redis-1 6379');
  });

  it('starts the apps after the migration and the Sentinels; everything it mounts or builds exists', () => {
    for (const name of ['ingress', 'worker']) {
      expect(service(name).depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        ...Object.fromEntries(sentinels.map((s) => [s, { condition: 'service_healthy' }])),
      });
    }
    expect(service('ingress').healthcheck?.test.join(' ')).toContain('/health/live');
    for (const [name, s] of Object.entries(compose.services)) {
      for (const mount of s.volumes ?? []) {
        const source = mount.split(':')[0] ?? '';
        if (source.startsWith('./')) expect([name, source, existsSync(join(ROOT, source))]).toEqual([name, source, true]);
        else expect([name, source, source in compose.volumes]).toEqual([name, source, true]);
      }
      if (s.build) expect([name, existsSync(join(ROOT, s.build))]).toEqual([name, true]);
    }
  });
});
