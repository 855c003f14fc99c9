import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseConfig, type ConfigSchema } from './parse';
import { CliConfig, IngressConfig, WorkerConfig } from './schemas';

// Ties deploy/kubernetes to the code, as compose.spec.ts does docker-compose.yml: every variable
// a manifest sets must be one its app reads, with a value it accepts, and the probes must hit the
// port the settings open.
const DIR = join(__dirname, '..', '..', '..', 'deploy', 'kubernetes');

type Doc = { kind: string; metadata: { name: string }; data?: Record<string, string>; stringData?: Record<string, string>; spec?: unknown };
type Container = {
  name: string;
  args?: string[];
  env?: { name: string; value: string }[];
  envFrom?: ({ configMapRef: { name: string } } | { secretRef: { name: string } })[];
  readinessProbe?: { httpGet: { path: string; port: number } };
  livenessProbe?: { httpGet: { path: string; port: number } };
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
};

const docs: Doc[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((d) => d.toJS() as Doc));

const named = (kind: string, name: string): Doc => {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found;
};

function containersOf(doc: Doc): Container[] {
  const spec = doc.spec as { template: { spec: { containers: Container[] } } };
  return spec.template.spec.containers;
}

function environmentOf(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const source = 'configMapRef' in from ? named('ConfigMap', from.configMapRef.name).data : named('Secret', from.secretRef.name).stringData;
    Object.assign(env, source);
  }
  for (const e of c.env ?? []) env[e.name] = e.value;
  return env;
}

const SCHEMAS: Record<string, ConfigSchema> = { ingress: IngressConfig, worker: WorkerConfig, migrate: CliConfig };
const workloads = docs
  .filter((d) => d.kind === 'Deployment' || d.kind === 'Job')
  .flatMap((d) => containersOf(d).map((c) => [`${d.kind} ${d.metadata.name}`, c] as const));

describe('deploy/kubernetes', () => {
  it('has the three roles, each run through bin/hub', () => {
    expect(workloads.map(([, c]) => c.args?.[0]).sort()).toEqual(['ingress', 'migrate', 'worker']);
  });

  it.each(workloads)('%s sets only variables its config schema reads, with valid values', (_, c) => {
    const schema = SCHEMAS[c.args?.[0] ?? ''];
    const env = environmentOf(c);
    expect(Object.keys(env).filter((key) => !(key in schema.shape))).toEqual([]);
    expect(() => parseConfig(schema, env, { alsoKnown: [] })).not.toThrow();
  });

  it.each(workloads.filter(([, c]) => c.args?.[0] !== 'migrate'))('%s probes /health on the port its settings open', (_, c) => {
    const role = c.args?.[0];
    const settings = parseConfig(SCHEMAS[role ?? ''], environmentOf(c), { alsoKnown: [] }) as { PORT?: number; HUB_WORKER_HEALTH_PORT?: number };
    const port = role === 'ingress' ? settings.PORT : settings.HUB_WORKER_HEALTH_PORT;
    expect(port).toBeGreaterThan(0);
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/health', port });
    // The ingress's liveness must not depend on the stores (/health/live); see kustomize-render.spec.ts.
    expect(c.livenessProbe?.httpGet).toEqual({ path: role === 'ingress' ? '/health/live' : '/health', port });
  });

  it("migrates as the tables' owner; the apps connect as a login of their own and never get the owner's URL", () => {
    for (const [, c] of workloads) {
      const env = environmentOf(c);
      const app = new URL(env['DATABASE_URL'] ?? '');
      if (c.args?.[0] !== 'migrate') {
        expect(env['HUB_OWNER_DATABASE_URL']).toBeUndefined();
        continue;
      }
      const owner = new URL(env['HUB_OWNER_DATABASE_URL'] ?? '');
      expect(app.username).not.toBe(owner.username);
      expect(`${app.host}${app.pathname}`).toBe(`${owner.host}${owner.pathname}`);
    }
  });

  it.each(workloads)('%s requests CPU and memory and caps its memory', (_, c) => {
    expect(c.resources?.requests).toEqual({ cpu: expect.stringMatching(/^\d+m?$/), memory: expect.stringMatching(/^\d+(Mi|Gi)$/) });
    expect(c.resources?.limits?.memory).toMatch(/^\d+(Mi|Gi)$/);
  });

  it('names the ingress Service hub, and the apps start with the service links it makes', () => {
    expect(named('Service', 'hub')).toBeDefined();
    const links = { HUB_SERVICE_HOST: '10.0.0.1', HUB_SERVICE_PORT: '8080', HUB_PORT: 'tcp://10.0.0.1:8080', HUB_PORT_8080_TCP_ADDR: '10.0.0.1' };
    for (const [, c] of workloads) expect(() => parseConfig(SCHEMAS[c.args?.[0] ?? ''], { ...environmentOf(c), ...links })).not.toThrow();
  });
});
