import { HubStack, TransportTestClient, hubJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';
import { runLine } from '../zene/testing/spawn-host';

// Issue 16: a tenant limit, set by an admin, answered in each protocol's own shape when used up,
// with nothing appended; its counter is in Redis, so it holds over an ingress restart; another
// tenant is not touched by it.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let other: { tenantId: string; apiKey: string };

const api = (path: string, key: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

/** One turn over the transport on a fresh session: 'ok', or the error frame's code. */
async function transportTurn(key: string, session: string): Promise<string> {
  const c = await TransportTestClient.connect(stack.url, key, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt: 'hello' }]);
  await c.waitFor(
    'an answer or a refusal',
    (x) => x.errors().length > 0 || ((x.state?.messages.length ?? 0) >= before + 2 && x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete'),
  );
  await c.close();
  return c.errors()[0]?.code ?? 'ok';
}

beforeAll(async () => {
  stack = await HubStack.start({ label: 'limits', workers: 1 });
  tenant = await stack.createTenant('limited');
  other = await stack.createTenant('unlimited');
  expect((await hubJson('PUT', `${stack.url}/v1/openenv/calc`, tenant.apiKey, { description: 'arithmetic' })).status).toBe(200);
});
afterAll(() => stack?.stop());

it('only an admin sets limits; they are recorded on the admin stream', async () => {
  const operator = (await (await api('/v1/admin/keys', tenant.apiKey, { method: 'POST', body: { name: 'ops', role: 'operator' } })).json()) as {
    apiKey: string;
  };
  expect((await api('/v1/admin/limits', operator.apiKey, { method: 'PUT', body: { turnsPerMinute: 3 } })).status).toBe(403);
  expect((await api('/v1/admin/limits', tenant.apiKey, { method: 'PUT', body: { turnsPerMinute: 0 } })).status).toBe(400);
  expect((await api('/v1/admin/limits', tenant.apiKey, { method: 'PUT', body: { openSockets: -1 } })).status).toBe(400);
  expect((await api('/v1/admin/limits', tenant.apiKey, { method: 'PUT', body: { eventBytesPerDay: 1.5 } })).status).toBe(400);
  const set = await api('/v1/admin/limits', tenant.apiKey, { method: 'PUT', body: { turnsPerMinute: 3 } });
  expect(set.status).toBe(200);
  expect(await (await api('/v1/admin/limits', tenant.apiKey)).json()).toEqual({
    limits: { turnsPerMinute: 3, concurrentTurns: null, tokensPerDay: null, sessions: null, openSockets: null, eventBytesPerDay: null, retentionDays: null },
  });
  const admin = await stack.streamEvents(tenant.tenantId, 'tenant-admin');
  expect(admin.at(-1)).toEqual(
    expect.objectContaining({
      type: 'TenantLimitsSet',
      data: {
        limits: {
          turnsPerMinute: 3,
          concurrentTurns: null,
          tokensPerDay: null,
          sessions: null,
          openSockets: null,
          eventBytesPerDay: null,
          retentionDays: null,
        },
      },
    }),
  );

  // The CLI reads them, and sets one keeping the others.
  const shown = await stack.cli(['tenant', 'limits', tenant.tenantId]);
  expect(JSON.parse(shown.stdout)).toEqual({
    turnsPerMinute: 3,
    concurrentTurns: null,
    tokensPerDay: null,
    sessions: null,
    openSockets: null,
    eventBytesPerDay: null,
    retentionDays: null,
  });
  const changed = await stack.cli(['tenant', 'limits', tenant.tenantId, '--retention-days', '90', '--open-sockets', '40', '--event-bytes-per-day', '50000000']);
  expect(JSON.parse(changed.stdout)).toEqual({
    turnsPerMinute: 3,
    concurrentTurns: null,
    tokensPerDay: null,
    sessions: null,
    openSockets: 40,
    eventBytesPerDay: 50_000_000,
    retentionDays: 90,
  });
  expect(JSON.parse((await stack.cli(['tenant', 'limits', tenant.tenantId, '--open-sockets', 'none', '--event-bytes-per-day', 'none'])).stdout)).toEqual(
    expect.objectContaining({ openSockets: null, eventBytesPerDay: null, retentionDays: 90 }),
  );
  expect((await stack.cli(['tenant', 'limits', tenant.tenantId, '--sessions', '-1'])).code).toBe(1);
  expect((await stack.streamEvents(tenant.tenantId, 'tenant-admin')).at(-1)?.metadata).toEqual(
    expect.objectContaining({ actor: expect.objectContaining({ type: 'system', id: 'cli' }), protocol: 'cli' }),
  );
});

it('turns per minute: used up, every protocol refuses in its own shape and appends nothing; it holds over an ingress restart', async () => {
  for (let i = 0; i < 3; i++) expect(await transportTurn(tenant.apiKey, `ok-${i}`)).toBe('ok');
  // An ACP session is opened before counting: session/new records a fact of its own.
  const acp = AcpSdkClient.ws(stack.url, tenant.apiKey);
  await acp.request('initialize', { protocolVersion: 1 });
  const { sessionId } = await acp.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] });
  const before = await stack.countAllEvents();

  expect(await transportTurn(tenant.apiKey, 'over')).toBe('rate_limited');
  await expect(acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })).rejects.toEqual(
    expect.objectContaining({ data: { code: 'RATE_LIMITED', retryAfterMs: expect.any(Number) } }),
  );
  await acp.close();
  const oh = await api('/v1/openharness', tenant.apiKey, {
    method: 'POST',
    body: { protocol_version: '1.0.0', request_id: 'oh-1', request: { context: { session_id: 'oh', user_intent: 'hello' } } },
  });
  expect(oh.status).toBe(429);
  expect(((await oh.json()) as { response: { error: { code: string } } }).response.error.code).toBe('rate_limited');
  const zene = await fetch(`${stack.url}/v1/zene`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: runLine({ request_id: 'z-1', session_id: 'z', prompt: 'hello' }),
  });
  expect(((await zene.json()) as { error_code: string }).error_code).toBe('BUSY');
  expect((await hubJson('POST', `${stack.url}/v1/openenv/calc/reset`, tenant.apiKey, {})).status).toBe(200);
  const before2 = await stack.countAllEvents(); // the reset opened an episode session: not a turn
  const step = await hubJson('POST', `${stack.url}/v1/openenv/calc/step`, tenant.apiKey, { action: { message: 'hello' } });
  expect(step.status).toBe(429);
  expect(await stack.countAllEvents()).toBe(before2);
  expect(before2 - before).toBe(3); // the episode list's entry, SessionOpened and EpisodeReset: nothing of a turn

  // The HTTP face of it: 429 with Retry-After, as problem+json.
  const res = await api('/v1/sessions/ok-0/approvals/nope', tenant.apiKey, { method: 'POST', body: { decision: 'approved' } });
  expect(res.status).toBe(404); // answering approvals is not a turn: never limited

  // Another tenant is not limited; a restarted ingress still counts this one's minute.
  expect(await transportTurn(other.apiKey, 'free')).toBe('ok');
  await stack.restartIngress();
  expect(await transportTurn(tenant.apiKey, 'after-restart')).toBe('rate_limited');

  // Lifting the limit lets turns through at once.
  expect((await api('/v1/admin/limits', tenant.apiKey, { method: 'PUT', body: { turnsPerMinute: null } })).status).toBe(200);
  expect(await transportTurn(tenant.apiKey, 'lifted')).toBe('ok');
});

it('model tokens per day and sessions: refused once used up, counted across workers and ingress, another session of the tenant keeps going within its limits', async () => {
  const t = await stack.createTenant('budget');
  const set = (limits: Record<string, number | null>) => api('/v1/admin/limits', t.apiKey, { method: 'PUT', body: limits });
  expect((await set({ tokensPerDay: 50 })).status).toBe(200);
  expect(await transportTurn(t.apiKey, 'spend')).toBe('ok'); // an offline turn uses more than 50 tokens
  const before = await stack.countAllEvents();
  expect(await transportTurn(t.apiKey, 'spend')).toBe('rate_limited');
  expect(await stack.countAllEvents()).toBe(before);
  const oh = await api('/v1/openharness', t.apiKey, {
    method: 'POST',
    body: { protocol_version: '1.0.0', request_id: 'oh-t', request: { context: { session_id: 'oh-t', user_intent: 'hello' } } },
  });
  expect(oh.status).toBe(429);

  expect((await set({ sessions: 1 })).status).toBe(200);
  expect(await transportTurn(t.apiKey, 'spend')).toBe('ok'); // its one session goes on
  expect(await transportTurn(t.apiKey, 'second')).toBe('rate_limited'); // a second is refused
  expect(await stack.events(t.tenantId, 'second')).toEqual([]);
  expect((await set({})).status).toBe(200);
  expect(await transportTurn(t.apiKey, 'second')).toBe('ok');
});

it('concurrent turns: a tenant at its cap gets a new session refused until a running turn ends', async () => {
  const t = await stack.createTenant('concurrent');
  expect((await api('/v1/admin/limits', t.apiKey, { method: 'PUT', body: { concurrentTurns: 1 } })).status).toBe(200);
  const a = await TransportTestClient.connect(stack.url, t.apiKey, { session: 'a' });
  await a.waitFor('snapshot', (x) => x.state !== null);
  a.send([{ type: 'submit', prompt: 'write "x" to a.txt' }]);
  await a.waitFor('the approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
  // Counted from the log, not the read model: at once, with no wait for a projection.
  expect(await transportTurn(t.apiKey, 'b')).toBe('rate_limited');
  a.send([{ type: 'approve', approvalId: a.lastAssistant()?.toolCalls?.[0]?.approval?.id }]);
  await a.waitFor('the end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await a.close();
  expect(await transportTurn(t.apiKey, 'b')).toBe('ok');
});

it('concurrent turns: of a burst of submits to new sessions at once, exactly the cap runs', async () => {
  const t = await stack.createTenant('burst');
  expect((await api('/v1/admin/limits', t.apiKey, { method: 'PUT', body: { concurrentTurns: 2 } })).status).toBe(200);
  const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => TransportTestClient.connect(stack.url, t.apiKey, { session: `burst-${i}` })));
  await Promise.all(clients.map((c) => c.waitFor('snapshot', (x) => x.state !== null)));
  // Each turn waits for an approval, so it is still running when the last submit is checked.
  for (const c of clients) c.send([{ type: 'submit', prompt: 'write "x" to a.txt' }]);
  const pending = (c: TransportTestClient) => c.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending';
  await Promise.all(clients.map((c) => c.waitFor('the approval or a refusal', (x) => x.errors().length > 0 || pending(x))));
  const outcomes = clients.map((c) => (pending(c) ? 'running' : c.errors()[0].code)).sort();
  expect(outcomes).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited', 'running', 'running']);
  for (const c of clients.filter(pending)) {
    c.send([{ type: 'cancel' }]);
    await c.waitFor('the cancel', (x) => x.state?.status === 'idle');
  }
  await Promise.all(clients.map((c) => c.close()));
});
