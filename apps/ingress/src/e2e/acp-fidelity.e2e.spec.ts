import WebSocket from 'ws';
import { HubProcess, HubStack } from '@hub/testing';

// Issue 13 (ACP / Harn bridge items 10-13) and issue 11 (defects 8 and 9, ACP part), against
// real ingress and worker processes: sessions that do not exist, session/list, live-session
// updates to observers, permission answers with rewritten args, and oversized stdio lines.

jest.setTimeout(180_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'acpfid', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '5' } });
  tenant = await stack.createTenant('fidelity');
});
afterAll(async () => {
  await stack?.stop();
});

type Msg = {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown> & { update?: { sessionUpdate: string; _meta?: { harn?: Record<string, unknown> } } };
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** A bare JSON-RPC client on `WS /v1/acp`; `answer` replies to the hub's own requests. */
async function rawClient(answer: (m: Msg) => unknown = () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } })) {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  const got: Msg[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as Msg;
    got.push(m);
    if (m.method && m.id !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer(m) }));
  });
  await new Promise((r) => ws.once('open', r));
  let next = 1;
  const call = async <T = Record<string, unknown>>(method: string, params: unknown): Promise<T> => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const end = Date.now() + 90_000;
    for (;;) {
      const m = got.find((x) => x.id === id && !x.method);
      if (m) return m.error ? Promise.reject(m.error) : (m.result as T);
      if (Date.now() > end) throw new Error(`no answer to ${method}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const updates = (sessionId: string) =>
    got.flatMap((m) => (m.method === 'session/update' && m.params?.['sessionId'] === sessionId && m.params.update ? [m.params.update] : []));
  const closed = new Promise((r) => ws.once('close', r));
  return { call, updates, got, close: () => (ws.close(), closed) };
}

async function newSession(c: Awaited<ReturnType<typeof rawClient>>, cwd = '/work', clientCapabilities: object = {}) {
  await c.call('initialize', { protocolVersion: 1, clientCapabilities });
  return (await c.call<{ sessionId: string }>('session/new', { cwd, mcpServers: [] })).sessionId;
}

const notFound = expect.objectContaining({ code: -32002 });

describe('a session that does not exist (item 11; issue 11 defect 9)', () => {
  it('session/prompt, resume and attach answer resource-not-found and create nothing', async () => {
    const c = await rawClient();
    await c.call('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const ghost = 'acp-never-created';
    await expect(c.call('session/prompt', { sessionId: ghost, prompt: [{ type: 'text', text: 'hi' }] })).rejects.toEqual(notFound);
    await expect(c.call('session/resume', { sessionId: ghost, cwd: '/' })).rejects.toEqual(notFound);
    await expect(c.call('session/attach', { sessionId: ghost, clientId: 'tui', mode: 'controller' })).rejects.toEqual(notFound);
    await expect(c.call('session/load', { sessionId: ghost, cwd: '/', mcpServers: [] })).rejects.toEqual(notFound);
    expect(await stack.events(tenant.tenantId, ghost)).toEqual([]);
    const listed = await c.call<{ sessions: { sessionId: string }[] }>('session/list', {});
    expect(listed.sessions.map((s) => s.sessionId)).not.toContain(ghost);
    await c.close();
  });
});

describe('session/list (item 12)', () => {
  it('lists a new session at once with the cwd it was created with, and filters by cwd', async () => {
    const c = await rawClient();
    const a = await newSession(c, '/work/alpha');
    const b = (await c.call<{ sessionId: string }>('session/new', { cwd: '/work/beta', mcpServers: [] })).sessionId;
    const all = await c.call<{ sessions: { sessionId: string; cwd: string }[] }>('session/list', {});
    expect(all.sessions).toEqual(
      expect.arrayContaining([expect.objectContaining({ sessionId: a, cwd: '/work/alpha' }), expect.objectContaining({ sessionId: b, cwd: '/work/beta' })]),
    );
    const alpha = await c.call<{ sessions: { sessionId: string; cwd: string }[] }>('session/list', { cwd: '/work/alpha' });
    expect(alpha.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[a, '/work/alpha']]);
    // A prompted session keeps its cwd, and a created one can be prompted, resumed and loaded.
    await c.call('session/prompt', { sessionId: b, prompt: [{ type: 'text', text: 'calculate 2 + 2' }] });
    const after = await c.call<{ sessions: { sessionId: string; cwd: string }[] }>('session/list', { cwd: '/work/beta' });
    expect(after.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[b, '/work/beta']]);
    await c.call('session/resume', { sessionId: a, cwd: '/work/alpha' });
    await c.call('session/load', { sessionId: a, cwd: '/work/alpha', mcpServers: [] });
    await c.close();
  });
});

describe('live-session updates (item 13)', () => {
  it('an attached observer gets attach, heartbeat, takeover, detach and client exit as live_session_client', async () => {
    const tui = await rawClient();
    const sessionId = await newSession(tui);
    // The observer is a plain Harn host: attaching is its opt-in, nothing hub-specific.
    const portal = await rawClient();
    await portal.call('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await portal.call('session/attach', { sessionId, clientId: 'portal', mode: 'observer' });
    await tui.call('session/attach', { sessionId, clientId: 'tui', mode: 'controller' });
    await tui.call('session/heartbeat', { sessionId, clientId: 'tui' });
    await portal.call('session/takeover', { sessionId, clientId: 'portal' });
    await portal.call('session/detach', { sessionId, clientId: 'portal', reason: 'done' });
    await portal.call('session/attach', { sessionId, clientId: 'portal', mode: 'observer' });
    await tui.close();
    const actions = () =>
      portal
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'live_session_client')
        .map((u) => [u._meta?.harn?.['action'], u._meta?.harn?.['clientId'], (u._meta?.harn?.['state'] as { reason?: string }).reason ?? null]);
    const end = Date.now() + 30_000;
    while (actions().length < 7 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(actions()).toEqual([
      ['attached', 'portal', null],
      ['attached', 'tui', null],
      ['heartbeat', 'tui', null],
      ['takeover', 'portal', null],
      ['detached', 'portal', 'done'],
      ['attached', 'portal', null],
      ['detached', 'tui', 'client_exit'],
    ]);
    for (const u of portal.updates(sessionId)) expect(Object.keys(u).sort()).toEqual(['_meta', 'sessionUpdate']);
    await portal.close();
  });

  it('initialize advertises live_session_client; a client that neither attached nor opted in gets none', async () => {
    const c = await rawClient();
    const init = await c.call<{ agentCapabilities: { _meta: { harn: { sessionUpdateExtensions: string[] } } } }>('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    expect(init.agentCapabilities._meta.harn.sessionUpdateExtensions).toContain('live_session_client');
    const sessionId = (await c.call<{ sessionId: string }>('session/new', { cwd: '/', mcpServers: [] })).sessionId;
    const other = await rawClient();
    await other.call('initialize', { protocolVersion: 1 });
    await other.call('session/attach', { sessionId, clientId: 'x', mode: 'observer' });
    await new Promise((r) => setTimeout(r, 500));
    expect(c.updates(sessionId)).toEqual([]);
    await Promise.all([c.close(), other.close()]);
  });
});

describe('permission answered with rewritten args (item 10)', () => {
  it('runs the tool with the edited args and records them as the approver’s edit', async () => {
    const c = await rawClient(() => ({ granted: true, args: { path: 'edited.txt', content: 'edited by the approver' } }));
    const sessionId = await newSession(c);
    const r = await c.call<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "original" to original.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const events = await stack.events(tenant.tenantId, sessionId);
    expect(events.filter((e) => e.type === 'ApprovalResolved').map((e) => e.data)).toEqual([
      expect.objectContaining({ decision: 'approved', input: { path: 'edited.txt', content: 'edited by the approver' } }),
    ]);
    expect(events.filter((e) => e.type === 'ToolCallCompleted').map((e) => [e.data.status, e.data.output])).toEqual([
      ['complete', expect.stringContaining('edited.txt')],
    ]);
    // The workspace has the edited file, not the original one.
    c.got.length = 0;
    await c.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read edited.txt' }] });
    const text = c
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u as unknown as { content: { text: string } }).content.text)
      .join('');
    expect(text).toContain('edited by the approver');
    await c.close();
  });

  it('edited args that break the tool’s input schema fail the call explicitly; the original never runs', async () => {
    const c = await rawClient(() => ({ granted: true, args: { path: 42 } }));
    const sessionId = await newSession(c);
    await c.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "original" to schema.txt' }] });
    const done = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ToolCallCompleted').map((e) => [e.data.status, e.data.output]);
    expect(done).toEqual([['error', expect.stringMatching(/edited.*input schema/i)]]);
    await c.close();
  });
});

describe('bin/hub acp stdin limits (issue 11 defect 8)', () => {
  it('answers a line over 1 MiB with a JSON-RPC error and goes on with the next request', async () => {
    const p = new HubProcess(['acp'], { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey });
    try {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: 'x'.repeat(1_100_000), mcpServers: [] } });
      p.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`);
      p.child.stdin?.write(`${big}\n`);
      p.child.stdin?.end(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} })}\n`);
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([p.exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
      clearTimeout(timer);
      const lines = p.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Msg);
      expect(lines.find((m) => m.id === 2)?.error).toEqual(expect.objectContaining({ code: -32600, message: expect.stringContaining('too large') }));
      expect(lines.find((m) => m.id === 3)?.result).toEqual(expect.objectContaining({ sessions: expect.any(Array) }));
      expect(lines.find((m) => m.id === 1)?.result).toBeDefined();
      expect(code).toBe(0);
    } finally {
      await p.kill('SIGKILL');
    }
  });

  it('keeps its stdin lines to HUB_MAX_FRAME_BYTES, the limit the hub holds its frames to (issue 30)', async () => {
    const p = new HubProcess(['acp'], { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey, HUB_MAX_FRAME_BYTES: '4096' });
    try {
      const over = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: 'x'.repeat(5000), mcpServers: [] } });
      p.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`);
      p.child.stdin?.end(`${over}\n`);
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([p.exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
      clearTimeout(timer);
      const lines = p.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Msg);
      expect(lines.find((m) => m.id === 2)?.error).toEqual(expect.objectContaining({ code: -32600, data: { reason: 'too_large', limitBytes: 4096 } }));
      expect(code).toBe(0);
    } finally {
      await p.kill('SIGKILL');
    }
  });
});
