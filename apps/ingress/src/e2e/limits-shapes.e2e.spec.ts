import { HubStack, TransportTestClient, hubJson } from '@hub/testing';
import { DailyEventBytes, DailyTokens } from '@hub/queue';
import { SURFACES } from './limit-surfaces';

// Issue 16: "Each limit, when exceeded, answers in each protocol's own shape and appends nothing;
// usage counters survive an ingress restart." Every limit checked before a turn or a new session,
// used up, then tried on every surface that can start one: the refusal is the protocol's own,
// names how long to wait, and appends nothing. (Open sockets: limits-sockets.e2e.spec.ts.)

jest.setTimeout(240_000);

let stack: HubStack;
let seq = 0;
const fresh = (what: string) => `${what}-${++seq}`;

/** Each surface's own refusal of a used-up limit. */
const REFUSAL: Record<string, string> = {
  transport: 'error frame rate_limited',
  acp: 'JSON-RPC error RATE_LIMITED',
  openharness: '429 rate_limited retryable',
  zene: '429 BUSY',
  openenv: '429 detail',
  'openenv /ws': 'error CAPACITY_REACHED',
  'openenv /harness': 'error event RATE_LIMITED recoverable',
  a2a: '429 -32052 RATE_LIMITED',
  'ag-ui': '429 RATE_LIMITED',
  'HTTP re-drive': '429 RATE_LIMITED',
  'HTTP fork': '429 RATE_LIMITED',
};
const TURN_SURFACES = Object.keys(REFUSAL).filter((s) => s !== 'HTTP fork');

type Tenant = { tenantId: string; apiKey: string };
const setLimits = (t: Tenant, limits: Record<string, number | null>) => hubJson('PUT', `${stack.url}/v1/admin/limits`, t.apiKey, limits);

/** One finished turn over the transport: 'ok', or the error frame's code and message. */
async function transportTurn(key: string, session: string, prompt = 'hello'): Promise<string> {
  const c = await TransportTestClient.connect(stack.url, key, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor(
    'an answer or a refusal',
    (x) => x.errors().length > 0 || ((x.state?.messages.length ?? 0) >= before + 2 && x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete'),
  );
  await c.close();
  const e = c.errors()[0];
  return e ? `${e.code}: ${e.message}` : 'ok';
}

async function until(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until a daily counter shows the tenant's use (the workers count after the model call; appenders flush every 250 ms). */
async function counted(counter: DailyTokens | DailyEventBytes, tenantId: string): Promise<void> {
  await until('the day counted', async () => (await counter.used(tenantId)).amount > 0);
}

interface LimitCase {
  limits: Record<string, number>;
  /** Brings the tenant to its limit (after its source session exists). */
  useUp(t: Tenant): Promise<void>;
  surfaces: string[];
  /** The wait each refusal names, in seconds. */
  retry: [number, number];
}

let tokens: DailyTokens;
let bytes: DailyEventBytes;

const CASES: Record<string, LimitCase> = {
  turnsPerMinute: {
    limits: { turnsPerMinute: 1 },
    useUp: (t) => transportTurn(t.apiKey, fresh('used')).then(() => undefined),
    surfaces: TURN_SURFACES,
    retry: [1, 60],
  },
  concurrentTurns: {
    limits: { concurrentTurns: 1 },
    async useUp(t) {
      // A turn waiting for an approval is running as far as the limit goes. The limit counts from
      // the log, so the source turn that just ended does not count, and this one does at once.
      const c = await TransportTestClient.connect(stack.url, t.apiKey, { session: fresh('waiting') });
      await c.waitFor('snapshot', (x) => x.state !== null);
      c.send([{ type: 'submit', prompt: 'write "x" to a.txt' }]);
      await c.waitFor('the approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
      await c.close();
    },
    surfaces: TURN_SURFACES,
    retry: [1, 1],
  },
  tokensPerDay: { limits: { tokensPerDay: 1 }, useUp: (t) => counted(tokens, t.tenantId), surfaces: TURN_SURFACES, retry: [23 * 3600, 24 * 3600] },
  eventBytesPerDay: {
    limits: { eventBytesPerDay: 1 },
    useUp: (t) => counted(bytes, t.tenantId),
    surfaces: Object.keys(REFUSAL),
    retry: [23 * 3600, 24 * 3600],
  },
  sessions: { limits: { sessions: 1 }, useUp: async () => undefined, surfaces: Object.keys(REFUSAL), retry: [60, 60] },
};

beforeAll(async () => {
  stack = await HubStack.start({ label: 'limits_shapes', workers: 1 });
  tokens = new DailyTokens(stack.baseEnv().REDIS_URL, stack.queuePrefix);
  bytes = new DailyEventBytes(stack.baseEnv().REDIS_URL, stack.queuePrefix);
});
afterAll(async () => {
  await tokens?.close();
  await bytes?.close();
  await stack?.stop();
});

describe.each(Object.keys(CASES))('%s used up', (name) => {
  const limit = CASES[name];
  let tenant: Tenant;
  let source = '';

  beforeAll(async () => {
    tenant = await stack.createTenant(name);
    expect((await hubJson('PUT', `${stack.url}/v1/openenv/calc`, tenant.apiKey, { description: 'arithmetic' })).status).toBe(200);
    // The tenant's one idle session, which a fork or re-drive starts from, made before the limit.
    source = fresh('source');
    expect(await transportTurn(tenant.apiKey, source)).toBe('ok');
    expect((await setLimits(tenant, limit.limits)).status).toBe(200);
    await limit.useUp(tenant);
  });

  it.each(limit.surfaces)('%s: refused in its own shape, naming the wait, appending nothing', async (surface) => {
    const attempt = await SURFACES[surface]({ url: stack.url, key: tenant.apiKey, count: () => stack.countAllEvents(), fresh, source });
    expect(attempt).toEqual({ refusal: REFUSAL[surface], retryAfterS: expect.any(Number), appended: 0 });
    expect(attempt.retryAfterS).toBeGreaterThanOrEqual(limit.retry[0]);
    expect(attempt.retryAfterS).toBeLessThanOrEqual(limit.retry[1]);
  });

  it('another tenant is not touched by it', async () => {
    const other = await stack.createTenant(`${name}-other`);
    expect(await transportTurn(other.apiKey, fresh('free'))).toBe('ok');
  });
});

it('limits that only bound turns leave forks alone: a fork is not a turn', async () => {
  const t = await stack.createTenant('fork-free');
  const source = fresh('source');
  expect(await transportTurn(t.apiKey, source)).toBe('ok');
  expect((await setLimits(t, { turnsPerMinute: 1, tokensPerDay: 1 })).status).toBe(200);
  await counted(tokens, t.tenantId);
  const attempt = await SURFACES['HTTP fork']({ url: stack.url, key: t.apiKey, count: () => stack.countAllEvents(), fresh, source });
  expect(attempt.refusal).toBe('ok');
});

it('usage counters survive an ingress restart, also a kill -9: turns per minute, tokens and event bytes per day', async () => {
  const used: Record<string, Tenant> = {};
  for (const limit of ['turnsPerMinute', 'tokensPerDay', 'eventBytesPerDay'] as const) {
    const t = await stack.createTenant(`restart-${limit}`);
    expect((await setLimits(t, { [limit]: 1 })).status).toBe(200);
    expect(await transportTurn(t.apiKey, fresh('spend'))).toBe('ok');
    used[limit] = t;
  }
  await counted(tokens, used.tokensPerDay.tenantId);
  await counted(bytes, used.eventBytesPerDay.tenantId);
  const refusals = async () => ({
    turnsPerMinute: await transportTurn(used.turnsPerMinute.apiKey, fresh('again')),
    tokensPerDay: await transportTurn(used.tokensPerDay.apiKey, fresh('again')),
    eventBytesPerDay: await transportTurn(used.eventBytesPerDay.apiKey, fresh('again')),
  });
  const expected = {
    turnsPerMinute: expect.stringMatching(/^rate_limited: .*1 turns per minute/),
    tokensPerDay: expect.stringMatching(/^rate_limited: .*model tokens per day/),
    eventBytesPerDay: expect.stringMatching(/^rate_limited: .*event bytes per day/),
  };
  expect(await refusals()).toEqual(expected);
  await stack.restartIngress();
  expect(await refusals()).toEqual(expected);
  await stack.restartIngress('SIGKILL');
  expect(await refusals()).toEqual(expected);
});
