import { HubProcess, HubStack } from '@hub/testing';

// Issue 31: a configuration that could run Postgres out of connections is refused at boot, with
// the sum and its parts, instead of failing under load ("sorry, too many clients already").

jest.setTimeout(60_000);

let stack: HubStack;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'budget', workers: 0 });
});
afterAll(() => stack?.stop());

it.each([
  ['worker', 'this worker may open 505 Postgres connections (500 in the main pool (HUB_DB_POOL_SIZE) + 5 for the projections'],
  ['ingress', 'this ingress may open 506 Postgres connections (500 in the main pool (HUB_DB_POOL_SIZE) + 3 in the API keys'],
])('refuses to start a %s whose pool cannot fit the server, saying why', async (role, said) => {
  const p = new HubProcess([role], { ...stack.baseEnv(), PORT: '0', HOST: '127.0.0.1', HUB_DB_POOL_SIZE: '500' });
  expect(await p.exited).not.toBe(0);
  expect(p.stderr).toContain(said);
  expect(p.stderr).toContain('docs/connections.md');
});
