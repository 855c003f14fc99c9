import { redisDurabilityWarning } from '@hub/queue';
import { HubStack, TEST_REDIS_URL } from '@hub/testing';

// Issue 30: the boot warning for a Redis that may lose queued turns was never exercised, and
// ingress (which enqueues every turn) did not check at all. Both apps print, at boot, exactly what
// the check says of the Redis they use (the machine's test server, whatever its settings), once.

jest.setTimeout(60_000);

let stack: HubStack;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'boot_warnings', workers: 1 });
});
afterAll(() => stack?.stop());

function warnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: unknown; msg?: string })
    .filter((l) => (l.level === 'warn' || l.level === 40) && /Redis/.test(l.msg ?? ''))
    .map((l) => l.msg as string);
}

it('ingress and worker each say once at boot what may lose queued turns in their Redis, or nothing', async () => {
  const expected = await redisDurabilityWarning(TEST_REDIS_URL);
  for (const p of [stack.ingress, stack.workers[0]]) expect(warnings(p.stderr)).toEqual(expected === null ? [] : [expected]);
});
