import { REPO_ROOT } from '@hub/testing';
import { within } from './waits';

// The HAProxy configuration docker-compose.ha.yml mounts, checked by the HAProxy the HA suite
// runs (Debian's). Needs no cluster, so it stays out of failover.ha.spec.ts's servers.

it("docker-compose.ha.yml's HAProxy configuration is one this HAProxy accepts (compose itself is not run here: no Docker)", async () => {
  const { execFile } = await import('node:child_process');
  const out = await within(
    'haproxy -c',
    30_000,
    new Promise<string>((resolve, reject) =>
      execFile('haproxy', ['-c', '-f', `${REPO_ROOT}/deploy/ha/haproxy.cfg`], (e, stdout, stderr) =>
        e ? reject(new Error(`${stdout}${stderr}`)) : resolve(stdout),
      ),
    ),
  );
  expect(out).toContain('Configuration file is valid');
});
