import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HUB_BIN, REPO_ROOT } from './paths';

// Issue 17 (ADR 0016): the project pins its Node (the `node` devDependency), so the README's two
// commands run on Node 24 on a machine whose system Node is older (ours have 20). `bin/hub` must
// pick the pinned runtime even when the first `node` on PATH is the system's, and so must the
// test runner (npm scripts and npx put node_modules/.bin first).

const pinned = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['node'];
/** A PATH of system directories only: whatever `node` the machine has, not the project's. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

it('the tests themselves run on the pinned Node', () => {
  expect(pinned).toMatch(/^24\.\d+\.\d+$/);
  expect(process.versions.node).toBe(pinned);
});

it("bin/hub runs the pinned Node even when PATH's first node is the system's", () => {
  // A preload that says which runtime loaded it, before the CLI prints its usage and exits.
  const probe = join(mkdtempSync(join(tmpdir(), 'hub-node-pin-')), 'probe.js');
  writeFileSync(probe, 'process.stderr.write(`runtime ${process.versions.node}\\n`);\n');
  const system = spawnSync('node', ['--version'], { env: { PATH: SYSTEM_PATH }, encoding: 'utf8' });
  const hub = spawnSync(HUB_BIN, ['--help'], {
    env: { PATH: SYSTEM_PATH, HOME: tmpdir(), NODE_OPTIONS: `--require ${probe}` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(hub.stderr).toContain(`runtime ${pinned}\n`);
  // Said for the record: on our machines this is Node 20, which the line above did not use.
  process.stdout.write(`system node on PATH: ${system.error ? 'none' : system.stdout.trim()}; bin/hub ran ${pinned}\n`);
});
