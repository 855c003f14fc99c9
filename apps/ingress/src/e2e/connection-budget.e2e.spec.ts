import { Client } from 'pg';
import { HubProcess, HubStack, TransportTestClient, testServerUrl } from '@hub/testing';

// Postgres at its limits, seen from ingress, on one stack.
// Issue 31: a configuration that could run Postgres out of connections is refused at boot, with
// the sum and its parts, instead of failing under load ("sorry, too many clients already").
// HUB_COMMAND_TIMEOUT_MS (issue 30): while the store is away a command is tried again with its
// idempotency key until the budget is spent, and then the client is told TIMEOUT, as the docs
// say, not INTERNAL. The outage is real: the stack's database refuses new connections and every
// connection it had is cut, so the ingress's next attempts fail to connect.

jest.setTimeout(60_000);

const BUDGET_MS = 1500;

let stack: HubStack;
let apiKey: string;
let admin: Client;
let database: string;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'pg_limits', workers: 0, ingressEnv: { HUB_COMMAND_TIMEOUT_MS: String(BUDGET_MS) } });
  apiKey = (await stack.createTenant('timeout')).apiKey;
  database = new URL(stack.appDatabaseUrl).pathname.slice(1);
  admin = new Client({ connectionString: testServerUrl() });
  await admin.connect();
});
afterAll(async () => {
  await setConnections(true).catch(() => undefined);
  await admin?.end();
  await stack?.stop();
});

it.each([
  ['worker', 'this worker may open 505 Postgres connections (500 in the main pool (HUB_DB_POOL_SIZE) + 5 for the projections'],
  ['ingress', 'this ingress may open 506 Postgres connections (500 in the main pool (HUB_DB_POOL_SIZE) + 3 in the API keys'],
])('refuses to start a %s whose pool cannot fit the server, saying why', async (role, said) => {
  const p = new HubProcess([role], { ...stack.baseEnv(), PORT: '0', HOST: '127.0.0.1', HUB_DB_POOL_SIZE: '500' });
  expect(await p.exited).not.toBe(0);
  expect(p.stderr).toContain(said);
  expect(p.stderr).toContain('docs/connections.md');
});

/** The store away (no new connection, every open one cut) or back. */
async function setConnections(allowed: boolean): Promise<void> {
  await admin.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS ${allowed ? 'true' : 'false'}`);
  if (!allowed) await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
}

it('a submit while Postgres is away answers TIMEOUT once HUB_COMMAND_TIMEOUT_MS has passed, and the same command goes through when it is back', async () => {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: 'outage' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  await setConnections(false);
  try {
    const sent = Date.now();
    c.send([{ type: 'submit', prompt: 'hello', id: 'cmd-during-outage' }]);
    await c.waitFor('an error frame', (x) => x.frames.some((f) => f.type === 'error'), 15_000);
    const waited = Date.now() - sent;
    const error = c.frames.find((f) => f.type === 'error');
    expect(error).toMatchObject({ type: 'error', code: 'timeout' });
    // Not before the budget, and not long after it (one pause of at most a second, then the answer).
    expect(waited).toBeGreaterThanOrEqual(BUDGET_MS - 100);
    expect(waited).toBeLessThan(BUDGET_MS + 3000);
  } finally {
    await setConnections(true);
  }
  // Back: the client's retry with the same command id is decided (once).
  c.send([{ type: 'submit', prompt: 'hello', id: 'cmd-during-outage' }]);
  await c.waitFor('the turn queued', (x) => x.state?.messages.some((m) => m.role === 'user') === true, 20_000);
  await c.close();
});
