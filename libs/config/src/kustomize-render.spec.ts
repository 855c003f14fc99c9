import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

// What Kubernetes receives: the kustomization rendered by `kubectl kustomize` (kustomize built
// into kubectl; Debian's `kubernetes-client` has it), not the files one by one. Checks the
// documented rollout (deploy/kubernetes/README.md): the image set once reaches every workload,
// the migrate Job included; the rollout's first step selects exactly the settings and the Job;
// the ingress's liveness does not depend on the stores.
const DIR = join(__dirname, '..', '..', '..', 'deploy', 'kubernetes');
/** The selector of the rollout's first step, as README.md and migrate-job.yaml write it. */
const FIRST_STEP = "-l 'app.kubernetes.io/component in (config,migrate)'";

type Probe = { httpGet: { path: string; port: number } };
type Container = { name: string; image: string; livenessProbe?: Probe; readinessProbe?: Probe };
type Resource = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: { template: { spec: { containers: Container[] } } } };

function render(dir: string): Resource[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`kubectl kustomize failed (install kubectl: Debian's kubernetes-client): ${(e as Error).message}`);
  }
  return parseAllDocuments(out).map((d) => d.toJS() as Resource);
}

/** The kustomization with `kustomize edit set image harness-hub=<image>` applied, rendered. */
function renderWithImage(newName: string, newTag: string): Resource[] {
  const copy = mkdtempSync(join(tmpdir(), 'hub-kustomize-'));
  try {
    cpSync(DIR, copy, { recursive: true });
    const file = join(copy, 'kustomization.yaml');
    const text = readFileSync(file, 'utf8').replace(
      /images:\n(?: {2}.*\n)+/,
      `images:\n  - name: harness-hub\n    newName: ${newName}\n    newTag: ${newTag}\n`,
    );
    writeFileSync(file, text);
    return render(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const workloads = (rs: Resource[]) => rs.filter((r) => r.kind === 'Deployment' || r.kind === 'Job');
const containers = (rs: Resource[]) => workloads(rs).flatMap((r) => r.spec?.template.spec.containers ?? []);
const selectedByFirstStep = (rs: Resource[]) => rs.filter((r) => ['config', 'migrate'].includes(r.metadata.labels?.['app.kubernetes.io/component'] ?? ''));

describe('deploy/kubernetes rendered by kustomize', () => {
  const rendered = render(DIR);

  it('renders the three workloads, the migrate Job included', () => {
    expect(
      workloads(rendered)
        .map((r) => `${r.kind}/${r.metadata.name}`)
        .sort(),
    ).toEqual(['Deployment/hub-ingress', 'Deployment/hub-worker', 'Job/hub-migrate']);
  });

  it("gives every container, the migrate Job's too, the image `kustomize edit set image` sets", () => {
    const images = containers(renderWithImage('registry.example.com/harness-hub', '1.2.3')).map((c) => c.image);
    expect(images).toEqual(['registry.example.com/harness-hub:1.2.3', 'registry.example.com/harness-hub:1.2.3', 'registry.example.com/harness-hub:1.2.3']);
  });

  it("selects exactly the settings and the Job for the rollout's first step, as the README writes it", () => {
    for (const doc of ['README.md', 'migrate-job.yaml']) expect(readFileSync(join(DIR, doc), 'utf8')).toContain(`kubectl apply -k . ${FIRST_STEP}`);
    expect(
      selectedByFirstStep(rendered)
        .map((r) => `${r.kind}/${r.metadata.name}`)
        .sort(),
    ).toEqual(['ConfigMap/hub-config', 'Job/hub-migrate', 'Secret/hub-owner-secrets', 'Secret/hub-secrets']);
  });

  it("deletes the last release's Job before applying the next (a Job's pod template is immutable)", () => {
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    const del = readme.indexOf('kubectl delete job hub-migrate --ignore-not-found');
    expect(del).toBeGreaterThan(0);
    expect(del).toBeLessThan(readme.indexOf(`kubectl apply -k . ${FIRST_STEP}`));
    expect(readme).not.toMatch(/apply -f [^\n]*migrate-job\.yaml/);
  });

  it("keeps the ingress's liveness off the stores and its readiness on them", () => {
    const ingress = rendered.find((r) => r.metadata.name === 'hub-ingress')?.spec?.template.spec.containers[0];
    expect(ingress?.livenessProbe?.httpGet.path).toBe('/health/live');
    expect(ingress?.readinessProbe?.httpGet.path).toBe('/health');
  });
});
