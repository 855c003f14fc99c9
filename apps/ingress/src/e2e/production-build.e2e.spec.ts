import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { redisDurabilityWarning } from '@hub/queue';
import { HubStack, REPO_ROOT, TEST_REDIS_URL, TransportTestClient } from '@hub/testing';

// The production build (`npm run build`, what the Docker image runs with HUB_RUN_FROM=dist):
// ingress and worker start from compiled JavaScript, with no TypeScript hook loaded, and a turn
// runs end to end through them, and each says at boot what it must (the Redis durability warning).

jest.setTimeout(120_000);

let stack: HubStack;

beforeAll(async () => {
  // The whole suite runs from a build it made first (tools/scripts/test-all.sh): rebuilding here
  // would delete files under the processes other spec files run at the same time.
  if (process.env.HUB_RUN_FROM !== 'dist') await promisify(execFile)(process.execPath, [resolve(REPO_ROOT, 'tools/scripts/build.mjs')], { cwd: REPO_ROOT });
  stack = await HubStack.start({ label: 'prodbuild', ingressEnv: { HUB_RUN_FROM: 'dist' }, workerEnv: { HUB_RUN_FROM: 'dist' } });
});
afterAll(() => stack?.stop());

const commandLine = (pid: number | undefined) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

it('ingress and worker run the compiled JavaScript, without the TypeScript hook', () => {
  for (const [proc, main] of [
    [stack.ingress, 'dist/apps/ingress/src/main.js'],
    [stack.workers[0], 'dist/apps/worker/src/main.js'],
  ] as const) {
    const argv = commandLine(proc?.child.pid);
    expect(argv).toContain(resolve(REPO_ROOT, main));
    expect(argv.join(' ')).not.toContain('@swc-node/register');
  }
});

it('a turn runs end to end through the built apps', async () => {
  const { apiKey } = await stack.createTenant('built');
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: 'built-1' });
  try {
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'hello' }]);
    await c.waitFor('the answer', (x) => x.state?.messages[1]?.status === 'complete' && x.state.status === 'idle');
    expect(c.lastAssistant()?.content.length).toBeGreaterThan(0);
  } finally {
    await c.close();
  }
  // The read models are projected on the worker's projection thread, a second entry point the
  // build must have compiled: the session is listed once its projection has run.
  const deadline = Date.now() + 15_000;
  let listed: Array<{ sessionId: string; turnCount: number }> = [];
  while (!listed.some((s) => s.sessionId === 'built-1' && s.turnCount === 1) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    listed = ((await (await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { sessions: typeof listed })
      .sessions;
  }
  expect(listed).toEqual([expect.objectContaining({ sessionId: 'built-1', turnCount: 1 })]);
});

// Issue 30: the boot warning for a Redis that may lose queued turns was never exercised, and
// ingress (which enqueues every turn) did not check at all. Both apps print, at boot, exactly what
// the check says of the Redis they use (the machine's test server, whatever its settings), once.
// (preflight.spec.ts and preflight.int.spec.ts hold the check's wording for each setting.)
it('ingress and worker each say once at boot what may lose queued turns in their Redis, or nothing', async () => {
  const expected = await redisDurabilityWarning(TEST_REDIS_URL);
  const warnings = (stderr: string) =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: unknown; msg?: string })
      .filter((l) => (l.level === 'warn' || l.level === 40) && /Redis/.test(l.msg ?? ''))
      .map((l) => l.msg as string);
  for (const p of [stack.ingress, stack.workers[0]]) expect(warnings(p?.stderr ?? '')).toEqual(expected === null ? [] : [expected]);
});
