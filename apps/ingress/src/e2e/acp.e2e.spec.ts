import WebSocket from 'ws';
import { HubStack, TransportTestClient } from '@hub/testing';
import { STANDARD_SESSION_UPDATES } from '@hub/protocol-acp';
import { AcpSdkClient, sdkConsole, validators } from '../acp/testing/sdk-client';

// ACP over `WS /v1/acp` and over a spawned `bin/hub acp`, driven by the official SDK's client
// side, against real ingress and worker processes on real Postgres and Redis.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
const v = validators();
const open: AcpSdkClient[] = [];
/** What the SDK clients logged as errors (a rejected update is "Error handling notification"). */
const sdkErrors: unknown[][] = [];

beforeAll(async () => {
  const original = sdkConsole.error.bind(sdkConsole);
  jest.spyOn(sdkConsole, 'error').mockImplementation((...args: unknown[]) => {
    sdkErrors.push(args);
    original(...args);
  });
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
  const init = await c.request<{ protocolVersion: number; agentCapabilities: { loadSession: boolean; _meta: { harn: Record<string, string[]> } } }>(
    'initialize',
    { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  );
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
    const text = c.updates
      .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.update as { content: { text: string } }).content.text)
      .join('');
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
    expect(c.permissionRequests[0]._meta?.['harn']).toEqual(
      expect.objectContaining({
        approvalRequest: expect.objectContaining({ action: 'write_file' }),
        policyDecision: expect.objectContaining({ action: 'ask' }),
      }),
    );
    c.policy = async () => ({ outcome: { outcome: 'selected', optionId: 'reject-once' } });
    const denied = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'delete out.txt' }] });
    expect(denied.stopReason).toBe('end_turn');
    const statuses = c.updates.filter((u) => u.update.sessionUpdate === 'tool_call_update').map((u) => (u.update as { status?: string }).status);
    expect(statuses).toEqual(expect.arrayContaining(['completed', 'failed']));
    const resolved = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ApprovalResolved');
    expect(resolved.map((e) => [e.data.decision, e.data.via])).toEqual([
      ['approved', 'acp'],
      ['denied', 'acp'],
    ]);
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
    await expect(b.request('session/load', { sessionId: 'no-such-session', cwd: '/', mcpServers: [] })).rejects.toEqual(
      expect.objectContaining({ code: -32002 }),
    );
  });
});

describe('Harn session-update extensions', () => {
  it('the standard SDK clients above got standard variants only and rejected none', () => {
    expect(open.length).toBeGreaterThan(3);
    for (const c of open) expect(c.updates.map((u) => u.update.sessionUpdate).filter((k) => !STANDARD_SESSION_UPDATES.has(k))).toEqual([]);
    expect(sdkErrors.map((a) => JSON.stringify(a))).toEqual([]);
  });

  it('go to a client that opts in at initialize, and not to one that does not', async () => {
    const run = async (clientCapabilities: object) => {
      const ws = await rawClient();
      await ws.call('initialize', { protocolVersion: 1, clientCapabilities });
      const { sessionId } = (await ws.call('session/new', { cwd: '/', mcpServers: [] })) as { sessionId: string };
      await ws.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 2 * 21' }] });
      ws.close();
      return ws.updates();
    };
    const opted = await run({ _meta: { harn: { sessionUpdateExtensions: true } } });
    expect(opted).toEqual(expect.arrayContaining(['user_message_chunk', 'progress', 'agent_message_chunk']));
    const listed = await run({ _meta: { harn: { sessionUpdateExtensions: ['log'] } } });
    expect(listed).toEqual(expect.arrayContaining(['user_message_chunk', 'agent_message_chunk']));
    expect(listed).not.toContain('progress');
  });
});

describe('live sessions (attach / detach / takeover / heartbeat)', () => {
  const attach = (c: AcpSdkClient, sessionId: string, clientId: string, mode: string, takeover = false) =>
    c.request<{ active_controller_id: string | null; previous_controller_id: string | null; client: { mode: string } }>('session/attach', {
      sessionId,
      clientId,
      mode,
      takeover,
      _meta: { harn: { surface: clientId } },
    });

  it('an observer sees everything and cannot prompt; takeover moves control', async () => {
    const tui = client('ws');
    const sessionId = await started(tui);
    const portal = client('ws');
    await portal.request('initialize', { protocolVersion: 1 });
    expect((await attach(tui, sessionId, 'tui', 'controller')).active_controller_id).toBe('tui');
    expect((await attach(portal, sessionId, 'portal', 'observer')).client.mode).toBe('observer');
    await expect(attach(portal, sessionId, 'portal', 'controller')).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'controller_already_attached', active_controller_id: 'tui' }) }),
    );
    await expect(portal.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 1 + 1' }] })).rejects.toEqual(
      expect.objectContaining({ data: { reason: 'not_owner_or_not_authorized' } }),
    );
    // The controller is asked permission; the observer sees the updates but is not asked.
    expect(
      (await tui.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "a" to live.txt' }] })).stopReason,
    ).toBe('end_turn');
    await portal.waitFor('the observed turn', () => portal.kinds(sessionId).filter((k) => k === 'tool_call_update').length >= 2);
    expect(portal.kinds(sessionId)).toEqual(expect.arrayContaining(['user_message_chunk', 'tool_call', 'agent_message_chunk']));
    expect([tui.permissionRequests.length, portal.permissionRequests.length]).toEqual([1, 0]);
    const hb = await portal.request<{ client: { metadata: Record<string, unknown> } }>('session/heartbeat', {
      sessionId,
      clientId: 'portal',
      _meta: { harn: { focus: 'diff' } },
    });
    expect(hb.client.metadata).toEqual({ surface: 'portal', focus: 'diff' });
    const t = await portal.request<{ previous_controller_id: string; active_controller_id: string }>('session/takeover', { sessionId, clientId: 'portal' });
    expect([t.previous_controller_id, t.active_controller_id]).toEqual(['tui', 'portal']);
    await expect(tui.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 1 + 1' }] })).rejects.toEqual(
      expect.objectContaining({ data: { reason: 'not_owner_or_not_authorized' } }),
    );
    expect(
      (await portal.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 2 * 21' }] })).stopReason,
    ).toBe('end_turn');
    const d = await portal.request<{ active_controller_id: string | null; reason: string }>('session/detach', {
      sessionId,
      clientId: 'portal',
      reason: 'done',
    });
    expect(d).toEqual(expect.objectContaining({ active_controller_id: null, reason: 'done' }));
  });

  it('a dropped connection detaches its client (client_exit) and releases control', async () => {
    const a = client('ws');
    const sessionId = await started(a);
    await attach(a, sessionId, 'gone', 'controller');
    const b = client('ws');
    await b.request('initialize', { protocolVersion: 1 });
    await expect(attach(b, sessionId, 'next', 'controller')).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'controller_already_attached' }) }),
    );
    await a.close();
    // The close reaches the ingress asynchronously: retry until control is released.
    let r: Awaited<ReturnType<typeof attach>> | undefined;
    for (let i = 0; i < 100 && !r; i++)
      r = await attach(b, sessionId, 'next', 'controller').catch(() => new Promise<undefined>((res) => setTimeout(() => res(undefined), 50)));
    expect([r?.active_controller_id, r?.previous_controller_id]).toEqual(['next', null]);
  });
});

describe('live input (session/inject)', () => {
  it('queued injects run after the current turn; a revoked one never reaches the model', async () => {
    const c = client('ws');
    const sessionId = await started(c);
    const prompt = c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow long answer 200' }] });
    await c.waitFor('the answer to stream', () => c.kinds(sessionId).includes('agent_message_chunk'));
    const kept = await c.request<{ status: string; messageId: string }>('session/inject', { sessionId, mode: 'queue', content: 'calculate 2 * 21' });
    const dropped = await c.request<{ status: string; messageId: string }>('session/inject', {
      sessionId,
      mode: 'steer',
      content: [{ type: 'text', text: 'calculate 1000 * 7' }],
    });
    const edited = await c.request<{ status: string; messageId: string }>('session/inject', { sessionId, mode: 'queue', content: 'calculate 300 * 3' });
    expect([kept.status, dropped.status, edited.status]).toEqual(['accepted', 'accepted', 'accepted']);
    const pending = await c.request<{ pendingCount: number; injections: { messageId: string; kind: string }[] }>('session/pending_injections', { sessionId });
    expect(pending.injections.map((i) => [i.kind, i.messageId])).toEqual([
      ['user', kept.messageId],
      ['user', dropped.messageId],
      ['user', edited.messageId],
    ]);
    expect(await c.request('session/replace_inject', { sessionId, messageId: edited.messageId, content: 'calculate 5 * 5' })).toEqual({
      messageId: edited.messageId,
      status: 'replaced',
    });
    expect(await c.request('session/revoke_inject', { sessionId, messageId: dropped.messageId })).toEqual({ messageId: dropped.messageId, status: 'revoked' });
    expect((await prompt).stopReason).toBe('end_turn');
    const turnOf = (id: string) => `acp-inject-${id}`;
    const events = async () => stack.events(tenant.tenantId, sessionId);
    // Generous: the two injected turns run after a slow one, and CI runs other suites beside this.
    const deadline = Date.now() + 60_000;
    const replacedDone = (es: Awaited<ReturnType<typeof events>>) =>
      es.some((e) => e.type === 'TurnCompleted' && e.data.turnId.startsWith(`${turnOf(edited.messageId)}-r`));
    while (!replacedDone(await events()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const all = await events();
    expect(all.filter((e) => e.type === 'TurnStarted').map((e) => e.data.turnId)).toEqual([
      expect.stringMatching(/^acp-/),
      turnOf(kept.messageId),
      expect.stringMatching(new RegExp(`^${turnOf(edited.messageId)}-r`)),
    ]);
    const text = c.updates
      .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.update as { content: { text: string } }).content.text)
      .join('');
    expect(text).toContain('42');
    expect(text).toContain('25');
    expect(text).not.toContain('7000');
    expect(text).not.toContain('900');
    await expect(c.request('session/replace_inject', { sessionId, messageId: dropped.messageId, content: 'x' })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'already_revoked' }) }),
    );
    expect(await c.request('session/revoke_inject', { sessionId, messageId: dropped.messageId })).toEqual({
      messageId: dropped.messageId,
      status: 'already_revoked',
    });
    await expect(c.request('session/revoke_inject', { sessionId, messageId: kept.messageId })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'already_delivered' }) }),
    );
    await expect(c.request('session/revoke_inject', { sessionId, messageId: 'nope' })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'unknown_message_id' }) }),
    );
  });
});

/** A bare JSON-RPC client on `WS /v1/acp` (no SDK: it must see extension variants as sent). */
async function rawClient() {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  const got: { id?: number; method?: string; params?: { update?: { sessionUpdate: string } }; result?: unknown; error?: unknown }[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  let next = 1;
  const call = async (method: string, params: unknown) => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const end = Date.now() + 30_000;
    for (;;) {
      const m = got.find((x) => x.id === id && !x.method);
      if (m) return m.error ? Promise.reject(m.error) : m.result;
      if (Date.now() > end) throw new Error(`no answer to ${method}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const updates = () => got.filter((m) => m.method === 'session/update').map((m) => m.params?.update?.sessionUpdate ?? '');
  return { call, updates, close: () => ws.close(), got, ws };
}

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
    const seen = c.updates
      .filter((u) => u.update.sessionUpdate === 'tool_call_update')
      .map((u) => u.update._meta?.['harn'] as { approval?: { decision: string; via: string } } | undefined);
    expect(seen.map((m) => m?.approval).filter(Boolean)).toEqual([expect.objectContaining({ decision: 'approved', via: 'transport' })]);
    release(); // the ACP client's late answer changes nothing: the first answer won
    const resolved = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ApprovalResolved');
    expect(resolved.map((e) => [e.data.decision, e.data.via])).toEqual([['approved', 'transport']]);
    await t.close();
  });
});
