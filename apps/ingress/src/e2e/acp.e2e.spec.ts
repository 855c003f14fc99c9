import WebSocket from 'ws';
import { HubStack, TransportTestClient } from '@hub/testing';
import { AcpSdkClient, validators } from '../acp/testing/sdk-client';

// ACP over `WS /v1/acp` and over a spawned `bin/hub acp`, driven by the official SDK's client
// side, against real ingress and worker processes on real Postgres and Redis.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
const v = validators();
const open: AcpSdkClient[] = [];

beforeAll(async () => {
  stack = await HubStack.start({ label: 'acp', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '5' } });
  tenant = await stack.createTenant('acme');
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await stack?.stop();
});

const client = (kind: 'ws' | 'stdio') => {
  const c = kind === 'ws' ? AcpSdkClient.ws(stack.url, tenant.apiKey) : AcpSdkClient.stdio(stack.url, tenant.apiKey);
  open.push(c);
  return c;
};

async function started(c: AcpSdkClient): Promise<string> {
  const init = await c.request<{ protocolVersion: number; agentCapabilities: { loadSession: boolean; _meta: { harn: Record<string, string[]> } } }>('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'e2e', version: '1' } });
  expect(init.protocolVersion).toBe(1);
  expect(init.agentCapabilities.loadSession).toBe(true);
  expect(init.agentCapabilities._meta.harn.sessionUpdateExtensions).toEqual(expect.arrayContaining(['progress', 'hitl_request']));
  expect(init.agentCapabilities._meta.harn.toolLifecycleExtensionFields).toEqual(expect.arrayContaining(['executor', 'durationMs']));
  const s = await c.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] });
  expect(s.sessionId).toMatch(/^acp-/);
  return s.sessionId;
}

const allValid = (c: AcpSdkClient) => {
  expect(c.updates.length).toBeGreaterThan(0);
  for (const u of c.updates) expect(v.check({ jsonrpc: '2.0', method: 'session/update', params: u } as never)).toEqual([]);
};

describe.each(['ws', 'stdio'] as const)('ACP over %s', (kind) => {
  it('initialize, new session, prompt with streamed updates and a tool call', async () => {
    const c = client(kind);
    const sessionId = await started(c);
    const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read notes.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const kinds = c.kinds(sessionId);
    expect(kinds).toEqual(expect.arrayContaining(['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']));
    const text = c.updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').map((u) => (u.update as { content: { text: string } }).content.text).join('');
    expect(text).toContain('Remember to water the plants');
    const done = c.updates.find((u) => u.update.sessionUpdate === 'tool_call_update' && (u.update as { status?: string }).status === 'completed');
    expect(done?.update._meta).toEqual({ harn: expect.objectContaining({ executor: expect.any(String), durationMs: expect.any(Number) }) });
    allValid(c);
  });

  it('asks permission; granted runs the tool, denied does not', async () => {
    const c = client(kind);
    const sessionId = await started(c);
    const ok = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "ok" to out.txt' }] });
    expect(ok.stopReason).toBe('end_turn');
    expect(c.permissionRequests).toHaveLength(1);
    expect(v.permissionRequest(c.permissionRequests[0])).toEqual([]);
    // The SDK's stable parser keeps `_meta` only; the spec's top-level copies are checked in the raw test.
    expect(c.permissionRequests[0]._meta?.['harn']).toEqual(expect.objectContaining({ approvalRequest: expect.objectContaining({ action: 'write_file' }), policyDecision: expect.objectContaining({ action: 'ask' }) }));
    c.policy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject-once' } });
    const denied = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'delete out.txt' }] });
    expect(denied.stopReason).toBe('end_turn');
    const statuses = c.updates.filter((u) => u.update.sessionUpdate === 'tool_call_update').map((u) => (u.update as { status?: string }).status);
    expect(statuses).toEqual(expect.arrayContaining(['completed', 'failed']));
    const resolved = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ApprovalResolved');
    expect(resolved.map((e) => [e.data.decision, e.data.via])).toEqual([['approved', 'acp'], ['denied', 'acp']]);
    allValid(c);
  });

  it('cancel ends the prompt with stopReason cancelled', async () => {
    const c = client(kind);
    const sessionId = await started(c);
    const prompt = c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow long answer 400' }] });
    await c.waitFor('the answer to stream', () => c.kinds(sessionId).includes('agent_message_chunk'));
    await c.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
  });

  it('load replays the history as session/update before answering', async () => {
    const a = client(kind);
    const sessionId = await started(a);
    await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read notes.txt' }] });
    const b = client(kind);
    await b.request('initialize', { protocolVersion: 1 });
    await b.request('session/load', { sessionId, cwd: '/work', mcpServers: [] });
    expect(b.kinds(sessionId)).toEqual(a.kinds(sessionId));
    allValid(b);
    await expect(b.request('session/load', { sessionId: 'no-such-session', cwd: '/', mcpServers: [] })).rejects.toEqual(expect.objectContaining({ code: -32002 }));
  });
});

describe('JSON-RPC errors on WS /v1/acp', () => {
  it('answers -32700, -32601 and -32602 and keeps the connection open', async () => {
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
    const got: { id: unknown; error?: { code: number }; result?: unknown }[] = [];
    ws.on('message', (d) => got.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send('{not json');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/frobnicate', params: {} }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { prompt: 'x' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 1 } }));
    const end = Date.now() + 10_000;
    while (got.length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const byId = new Map(got.map((m) => [m.id, m]));
    expect(byId.get(null)?.error?.code).toBe(-32700);
    expect(byId.get(1)?.error?.code).toBe(-32601);
    expect(byId.get(2)?.error?.code).toBe(-32602);
    expect(byId.get(3)?.result).toEqual(expect.objectContaining({ protocolVersion: 1 }));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('refuses an upgrade without a valid key', async () => {
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: 'Bearer nope' } });
    const status = await new Promise<number>((r) => ws.on('unexpected-response', (_q, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });
});

describe('across protocols', () => {
  it('a session started over ACP is on the transport WebSocket, and its approval can be answered there', async () => {
    const c = client('ws');
    const sessionId = await started(c);
    let release!: () => void;
    c.policy = () => new Promise((resolve) => (release = () => resolve({ outcome: { outcome: 'cancelled' } })));
    const prompt = c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "x" to cross.txt' }] });
    await c.waitFor('the permission request', () => c.permissionRequests.length === 1);
    const t = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: sessionId });
    await t.waitFor('a pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    t.send([{ type: 'approve', approvalId: t.lastAssistant()?.toolCalls?.[0]?.approval?.id }]);
    expect((await prompt).stopReason).toBe('end_turn');
    const seen = c.updates.filter((u) => u.update.sessionUpdate === 'tool_call_update').map((u) => u.update._meta?.['harn'] as { approval?: { decision: string; via: string } } | undefined);
    expect(seen.map((m) => m?.approval).filter(Boolean)).toEqual([expect.objectContaining({ decision: 'approved', via: 'transport' })]);
    release(); // the ACP client's late answer changes nothing: the first answer won
    const resolved = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ApprovalResolved');
    expect(resolved.map((e) => [e.data.decision, e.data.via])).toEqual([['approved', 'transport']]);
    await t.close();
  });
});
