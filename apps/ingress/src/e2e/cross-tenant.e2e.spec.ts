import WebSocket from 'ws';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { asTenant, createPool } from '@hub/event-store';
import { HubStack, TransportTestClient, type WireJson as Json } from '@hub/testing';

// Issue 11: the cross-tenant probe matrix. Tenant A has a session (with a turn) and an OpenEnv
// environment with an episode; tenant B's key probes each of them on every surface and must get
// exactly what a name that does not exist gets: never A's data, never a different answer.

jest.setTimeout(120_000);

let stack: HubStack;
let a: { tenantId: string; apiKey: string };
let b: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'xtenant', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1' } });
  a = await stack.createTenant('a');
  b = await stack.createTenant('b');
  const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'a-secret' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'the secret is 42' }]);
  await c.waitFor('the answer', (x) => x.state?.messages[1]?.status === 'complete' && x.state.status === 'idle');
  await c.close();
  expect((await http('PUT', '/v1/openenv/a-env', a.apiKey, { description: 'private' })).status).toBe(200);
  expect((await http('POST', '/v1/openenv/a-env/reset', a.apiKey, { episode_id: 'ep-a' })).status).toBe(200);
});
afterAll(() => stack?.stop());

async function http(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text.split('\n')[0]) : null) as Json };
}

/** B's answer for A's name and for a name nobody has, with the names blanked: they must match. */
async function sameAsMissing(probe: (name: string) => Promise<{ status: number; body: Json }>, real: string, missing: string) {
  const blank = (r: { status: number; body: Json }, name: string) =>
    JSON.parse(
      JSON.stringify(r)
        .split(name)
        .join('NAME')
        .replace(/"correlationId":"[^"]*"/g, '"correlationId":"-"'),
    );
  const theirs = await probe(real);
  const nobody = await probe(missing);
  expect(theirs.status).toBeGreaterThanOrEqual(400);
  expect(theirs.status).toBeLessThan(500);
  expect(blank(theirs, real)).toEqual(blank(nobody, missing));
  expect(JSON.stringify(theirs)).not.toMatch(/secret is 42|private/);
}

describe("tenant B probing tenant A's session", () => {
  it.each([
    ['events', (s: string) => http('GET', `/v1/sessions/${s}/events`, b.apiKey)],
    ['export', (s: string) => http('GET', `/v1/sessions/${s}/export`, b.apiKey)],
    ['state', (s: string) => http('GET', `/v1/sessions/${s}/state`, b.apiKey)],
    ['turns', (s: string) => http('GET', `/v1/sessions/${s}/turns`, b.apiKey)],
    ['an approval answer', (s: string) => http('POST', `/v1/sessions/${s}/approvals/ap-1`, b.apiKey, { decision: 'approved' })],
  ])('HTTP %s: the same 4xx as a missing session', async (_name, probe) => {
    await sameAsMissing(probe, 'a-secret', 'nobody-has-this');
  });

  it('lists: neither the sessions list nor the approvals inbox shows it', async () => {
    const list = await http('GET', '/v1/sessions', b.apiKey);
    expect(JSON.stringify(list.body)).not.toContain('a-secret');
    const inbox = await http('GET', '/v1/approvals?sessionId=a-secret', b.apiKey);
    expect(JSON.stringify(inbox.body)).not.toContain('a-secret');
  });

  it('ACP session/load: the same JSON-RPC error as a missing session', async () => {
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${b.apiKey}` } });
    const replies: Json[] = [];
    ws.on('message', (d) => replies.push(JSON.parse(d.toString()) as Json));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const ask = async (id: number, method: string, params: unknown) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      const end = Date.now() + 20_000;
      while (!replies.some((r) => r['id'] === id)) {
        if (Date.now() > end) throw new Error(`no reply to ${method}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { status: 400, body: replies.find((r) => r['id'] === id) as Json };
    };
    try {
      await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
      let n = 10;
      await sameAsMissing(
        (s) => ask(n++, 'session/load', { sessionId: s, cwd: '/w', mcpServers: [] }).then((r) => ({ ...r, body: { ...r.body, id: 0 } })),
        'a-secret',
        'nobody-has-this',
      );
      expect(replies.find((r) => r['id'] === 10)?.['error']).toEqual(expect.objectContaining({ code: -32002 }));
    } finally {
      ws.close();
    }
  });

  it.each([
    ['GetTask', (t: string) => ({ id: t })],
    ['SubscribeToTask', (t: string) => ({ id: t })],
    ['CancelTask', (t: string) => ({ id: t })],
    ['SendMessage on the task', (t: string) => ({ message: { messageId: 'b-1', taskId: t, role: 'ROLE_USER', parts: [{ text: 'approve' }] } })],
  ])('A2A %s: the same JSON-RPC error as a missing task', async (method, params) => {
    const requested = (await stack.events(a.tenantId, 'a-secret')).find((e) => e.type === 'TurnRequested');
    const turn = requested?.type === 'TurnRequested' ? requested.data.turnId : '';
    const call = async (task: string) => {
      const r = await http('POST', '/v1/a2a', b.apiKey, { jsonrpc: '2.0', id: 1, method: method.split(' ')[0], params: params(task) });
      // JSON-RPC errors leave with 200 (as the SDK's own server); the probe compares the error itself.
      expect([r.status, r.body.error?.code]).toEqual([200, expect.any(Number)]);
      return { status: 404, body: r.body };
    };
    await sameAsMissing(call, `a-secret/${turn}`, `nobody-has-this/${turn}`);
  });

  it('A2A ListTasks: no task, as for a context nobody has', async () => {
    const list = async (contextId: string) =>
      (await http('POST', '/v1/a2a', b.apiKey, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { contextId } })).body;
    expect(await list('a-secret')).toEqual(await list('nobody-has-this'));
    expect(await list('a-secret')).toEqual({ jsonrpc: '2.0', id: 1, result: { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 } });
  });

  it("AG-UI: B's HttpAgent on A's thread gets B's own empty thread, the same events as a thread nobody has", async () => {
    const watch = async (threadId: string) => {
      const agent = new HttpAgent({ url: `${stack.url}/v1/ag-ui`, headers: { Authorization: `Bearer ${b.apiKey}` }, threadId });
      const events: BaseEvent[] = [];
      await agent.runAgent({ runId: 'probe' }, { onEvent: ({ event }) => void events.push(event) });
      return { events, messages: agent.messages, state: agent.state };
    };
    const theirs = await watch('a-secret');
    const nobody = await watch('nobody-has-this');
    const blank = (x: unknown, name: string) =>
      JSON.parse(
        JSON.stringify(x)
          .split(name)
          .join('NAME')
          .replace(/"cursor":\d+/g, '"cursor":0'),
      );
    expect(blank(theirs, 'a-secret')).toEqual(blank(nobody, 'nobody-has-this'));
    expect(theirs.messages).toEqual([]);
    expect(theirs.state).toEqual({ status: 'idle', messages: [] });
    expect(JSON.stringify(theirs)).not.toMatch(/secret is 42/);
  });

  it("AG-UI resume of an approval on A's thread: the same 4xx as on a thread nobody has", async () => {
    const resume = (threadId: string) =>
      http('POST', '/v1/ag-ui', b.apiKey, {
        threadId,
        runId: 'probe',
        messages: [],
        tools: [],
        context: [],
        resume: [{ interruptId: 'ap-1', status: 'resolved', payload: { decision: 'approved' } }],
      });
    await sameAsMissing(resume, 'a-secret', 'nobody-has-this');
  });

  it("Transport: connecting to the same name opens B's own, empty session", async () => {
    const c = await TransportTestClient.connect(stack.url, b.apiKey, { session: 'a-secret' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    expect(c.state?.messages ?? []).toEqual([]);
    await c.close();
  });
});

describe("tenant B probing tenant A's OpenEnv environment and episode", () => {
  it.each([
    ['config', (e: string) => http('GET', `/v1/openenv/${e}`, b.apiKey)],
    ['state', (e: string) => http('GET', `/v1/openenv/${e}/state`, b.apiKey)],
    ['trajectory', (e: string) => http('GET', `/v1/openenv/${e}/trajectory?episode_id=ep-a`, b.apiKey)],
    ['step', (e: string) => http('POST', `/v1/openenv/${e}/step`, b.apiKey, { action: { message: 'hi' }, episode_id: 'ep-a' })],
    ['mcp', (e: string) => http('POST', `/v1/openenv/${e}/mcp`, b.apiKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ])('%s: the same 4xx as a missing environment', async (_name, probe) => {
    await sameAsMissing(probe, 'a-env', 'nobody-env');
  });
});

// Issue 16, isolation in Postgres: after the traffic above, the rows the hub itself wrote, read
// through the role the hub's processes connect as with deliberately unfiltered queries.
describe("in Postgres, through the apps' role", () => {
  const TABLES = [
    'tenants',
    'api_keys',
    'tenant_secrets',
    'streams',
    'events',
    'idempotency_keys',
    'session_snapshots',
    'read_sessions',
    'read_turns',
    'read_approvals',
  ];
  const tenantOf = (table: string, row: Record<string, unknown>) => (table === 'tenants' ? row['id'] : row['tenant_id']);

  it.each(TABLES)("SELECT * FROM %s as tenant B, or with no tenant set, returns no row of A's", async (table) => {
    const app = createPool(stack.appDatabaseUrl, { max: 1 });
    try {
      const asB = (await asTenant(app, b.tenantId).query(`SELECT * FROM ${table}`)).rows.map((r) => tenantOf(table, r));
      expect(asB.filter((t) => t !== b.tenantId)).toEqual([]);
      expect((await app.query(`SELECT * FROM ${table}`)).rows).toEqual([]);
    } finally {
      await app.end();
    }
  });

  it('A did write rows in those tables (the check above is not of empty tables)', async () => {
    const written = await stack.query<{ t: string }>(
      `SELECT t FROM (VALUES ('tenants', (SELECT count(*) FROM tenants WHERE id = $1)), ('api_keys', (SELECT count(*) FROM api_keys WHERE tenant_id = $1)),
         ('streams', (SELECT count(*) FROM streams WHERE tenant_id = $1)), ('events', (SELECT count(*) FROM events WHERE tenant_id = $1)),
         ('read_sessions', (SELECT count(*) FROM read_sessions WHERE tenant_id = $1)), ('read_turns', (SELECT count(*) FROM read_turns WHERE tenant_id = $1))) v(t, n)
        WHERE n > 0`,
      [a.tenantId],
    );
    expect(written.map((r) => r.t).sort()).toEqual(['api_keys', 'events', 'read_sessions', 'read_turns', 'streams', 'tenants']);
  });
});
