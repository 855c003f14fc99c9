import * as path from 'node:path';
import WebSocket from 'ws';
import { EventStore, createPool } from '@hub/event-store';
import { HubProcess, HubStack, testAllowEntry } from '@hub/testing';
import { AcpSdkClient, validators } from '../acp/testing/sdk-client';

// ACP live input and live sessions against real ingress and worker processes (issue 7, the rest):
// a steer reaching the running turn mid-turn, reminders, a session's own MCP servers, attachment
// recorded in the log (and shared by two ingress instances), and the permission timeout setting.

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../../../..');
const echoServer = {
  name: 'echo',
  command: process.execPath,
  args: ['-r', path.join(ROOT, 'node_modules/@swc-node/register/index.js'), path.join(ROOT, 'tools/test-harnesses/mcp-echo-server.ts'), 'a'],
  env: [] as { name: string; value: string }[],
};
const PERMISSION_TIMEOUT_MS = 3000;

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let pool: ReturnType<typeof createPool>;
const v = validators();
const open: AcpSdkClient[] = [];

beforeAll(async () => {
  const allow = { HUB_MCP_STDIO_COMMANDS: testAllowEntry([echoServer.command, ...echoServer.args.slice(0, 3)]) };
  stack = await HubStack.start({
    label: 'acplive',
    workers: 1,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '5', ...allow },
    ingressEnv: { HUB_ACP_PERMISSION_TIMEOUT_MS: String(PERMISSION_TIMEOUT_MS), ...allow },
  });
  tenant = await stack.createTenant('live');
  pool = createPool(stack.databaseUrl, { max: 2 });
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await pool?.end();
  await stack?.stop();
});

const client = (url = stack.url) => {
  const c = AcpSdkClient.ws(url, tenant.apiKey);
  open.push(c);
  return c;
};

async function started(c: AcpSdkClient, mcpServers: unknown[] = []): Promise<string> {
  await c.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return (await c.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers })).sessionId;
}

const agentText = (c: AcpSdkClient, sessionId: string) =>
  c.updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.update as { content: { text: string } }).content.text)
    .join('');
const allValid = (c: AcpSdkClient) => {
  for (const u of c.updates) expect(v.check({ jsonrpc: '2.0', method: 'session/update', params: u } as never)).toEqual([]);
};
const allow = { outcome: { outcome: 'selected', optionId: 'allow-once' } } as const;

describe('session/inject steer', () => {
  it('reaches the running turn at its next step boundary; its own turn never starts', async () => {
    const c = client();
    const sessionId = await started(c);
    let steered = '';
    // While the turn waits for the write's approval, steer it; then approve.
    c.policy = async () => {
      steered = (await c.request<{ messageId: string }>('session/inject', { sessionId, mode: 'steer', content: 'calculate 6 * 7' })).messageId;
      return allow;
    };
    const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "s" to steer.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const events = await stack.events(tenant.tenantId, sessionId);
    const injected = events.filter((e) => e.type === 'UserMessageInjected').map((e) => e.data);
    expect(injected).toEqual([expect.objectContaining({ fromTurnId: `acp-inject-${steered}`, text: 'calculate 6 * 7', beforeStep: 1 })]);
    expect(events.filter((e) => e.type === 'TurnStarted')).toHaveLength(1);
    expect(agentText(c, sessionId)).toContain('The result is 42');
    await expect(c.request('session/revoke_inject', { sessionId, messageId: steered })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'already_delivered' }) }),
    );
    allValid(c);
  });

  it('a steer revoked before the boundary never reaches the model', async () => {
    const c = client();
    const sessionId = await started(c);
    c.policy = async () => {
      const { messageId } = await c.request<{ messageId: string }>('session/inject', { sessionId, mode: 'steer', content: 'calculate 1000 * 7' });
      expect(await c.request('session/revoke_inject', { sessionId, messageId })).toEqual({ messageId, status: 'revoked' });
      return allow;
    };
    expect(
      (await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "r" to revoked.txt' }] })).stopReason,
    ).toBe('end_turn');
    const events = await stack.events(tenant.tenantId, sessionId);
    expect(events.some((e) => e.type === 'UserMessageInjected')).toBe(false);
    expect(events.filter((e) => e.type === 'TurnStarted')).toHaveLength(1);
    expect(agentText(c, sessionId)).not.toContain('7000');
  });
});

/** A bare JSON-RPC client (it must see Harn extension variants as sent). */
async function rawClient(url = stack.url) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  const got: {
    id?: number;
    method?: string;
    params?: { sessionId: string; update: { sessionUpdate: string; _meta?: { harn?: Record<string, unknown> }; content?: { text: string } } };
    result?: unknown;
    error?: unknown;
  }[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  let next = 1;
  const call = async <T = Record<string, unknown>>(method: string, params: unknown): Promise<T> => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const end = Date.now() + 60_000;
    for (;;) {
      const m = got.find((x) => x.id === id && !x.method);
      if (m) return m.error ? Promise.reject(m.error) : (m.result as T);
      if (Date.now() > end) throw new Error(`no answer to ${method}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const updates = () => got.flatMap((m) => (m.method === 'session/update' && m.params ? [m.params] : []));
  return { call, updates, ws, close: () => ws.close() };
}

describe('session/remind', () => {
  it('validates (HARN-RMD-001/002), lists, revokes, and renders a reminder into the next model request', async () => {
    const c = await rawClient();
    await c.call('initialize', { protocolVersion: 1, clientCapabilities: { _meta: { harn: { sessionUpdateExtensions: true } } } });
    const { sessionId } = await c.call<{ sessionId: string }>('session/new', { cwd: '/', mcpServers: [] });
    const refused = (params: unknown) =>
      c.call('session/remind', params).then(
        () => null,
        (e: { code: number; data: { code: string } }) => [e.code, e.data.code],
      );
    expect(await refused({ sessionId, body: 'x', colour: 'red' })).toEqual([-32602, 'HARN-RMD-001']);
    expect(await refused({ sessionId, tags: ['a'] })).toEqual([-32602, 'HARN-RMD-002']);
    expect(await refused({ sessionId, body: 'x', mode: 'whenever' })).toEqual([-32602, 'HARN-RMD-002']);
    expect(await refused({ sessionId, body: 'x', ttl_turns: 0 })).toEqual([-32602, 'HARN-RMD-002']);

    const kept = await c.call<{ reminderId: string; status: string }>('session/remind', {
      sessionId,
      body: 'Re-read src/lib.rs before editing.',
      tags: ['workspace'],
      dedupe_key: 'ws',
      ttl_turns: 1,
      role_hint: 'system',
      mode: 'interrupt_immediate',
      _meta: { harn: { origin: 'file-watcher' } },
    });
    const dropped = await c.call<{ reminderId: string }>('session/remind', { sessionId, body: 'never shown', mode: 'finish_step' });
    expect(kept.status).toBe('accepted');
    const pending = await c.call<{ pendingCount: number; injections: Record<string, unknown>[] }>('session/pending_injections', { sessionId });
    expect(pending.pendingCount).toBe(2);
    expect(pending.injections[0]).toEqual({
      kind: 'reminder',
      reminderId: kept.reminderId,
      mode: 'interrupt_immediate',
      body: 'Re-read src/lib.rs before editing.',
      tags: ['workspace'],
      dedupeKey: 'ws',
      ttlTurns: 1,
      roleHint: 'system',
      source: 'host',
    });
    expect(await c.call('session/revoke_reminder', { sessionId, reminderId: dropped.reminderId })).toEqual({
      reminderId: dropped.reminderId,
      status: 'revoked',
    });
    expect(await c.call('session/revoke_reminder', { sessionId, reminderId: dropped.reminderId })).toEqual({
      reminderId: dropped.reminderId,
      status: 'already_revoked',
    });
    await expect(c.call('session/revoke_reminder', { sessionId, reminderId: 'nope' })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'unknown_reminder_id' }) }),
    );

    await c.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what are my system reminders?' }] });
    const text = c
      .updates()
      .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.update.content?.text)
      .join('');
    expect(text).toBe('I see these system reminders: "Re-read src/lib.rs before editing.".');
    const emitted = c.updates().filter((u) => u.update.sessionUpdate === 'reminder_emitted');
    expect(emitted.map((u) => u.update._meta?.harn?.['reminder'])).toEqual([
      expect.objectContaining({ reminderId: kept.reminderId, renderedRole: 'system', roleHint: 'system', ttlTurns: 1, tags: ['workspace'] }),
    ]);
    await expect(c.call('session/revoke_reminder', { sessionId, reminderId: kept.reminderId })).rejects.toEqual(
      expect.objectContaining({ data: expect.objectContaining({ reason: 'already_delivered' }) }),
    );
    expect((await c.call<{ pendingCount: number }>('session/pending_injections', { sessionId })).pendingCount).toBe(0);
    // ttl_turns 1: the next turn no longer sees it.
    await c.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'system reminders again?' }] });
    expect(
      c
        .updates()
        .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.update.content?.text)
        .join(''),
    ).toContain('I see no system reminders.');
    for (const u of c.updates()) expect(v.check({ jsonrpc: '2.0', method: 'session/update', params: u } as never)).toEqual([]);
    c.close();
  });
});

describe('session/new mcpServers', () => {
  it("injects the session's MCP servers into its turns' tools", async () => {
    const c = client();
    const sessionId = await started(c, [echoServer]);
    const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'use echo with {"text": "hello acp"}' }] });
    expect(r.stopReason).toBe('end_turn');
    const call = c.updates.find((u) => u.update.sessionUpdate === 'tool_call')?.update as { title: string; _meta: { harn: { executor: unknown } } } | undefined;
    expect(call?.title).toBe('echo');
    expect(call?._meta.harn.executor).toEqual({ kind: 'mcp_server', serverName: 'echo' });
    expect(agentText(c, sessionId)).toContain('echo: hello acp');
    allValid(c);

    // The servers are the session's, kept in the log: a prompt from another connection gets them too.
    const other = client();
    await other.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await other.request('session/resume', { sessionId, cwd: '/work' });
    await other.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'use echo with {"text": "from elsewhere"}' }] });
    expect(agentText(other, sessionId)).toContain('echo: from elsewhere');
    // An HTTP server off HUB_MCP_HTTP_URLS is refused like a stdio command off its allowlist.
    const web = [{ type: 'http', name: 'web', url: 'http://169.254.169.254/mcp', headers: [] }];
    await expect(other.request('session/new', { cwd: '/', mcpServers: web })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('HUB_MCP_HTTP_URLS'),
    });
  });

  it('refuses a stdio command off the allowlist, an sse server and a malformed entry with -32602', async () => {
    const c = client();
    await c.request('initialize', { protocolVersion: 1 });
    const refusal = (mcpServers: unknown[]) =>
      c.request('session/new', { cwd: '/', mcpServers }).then(
        () => null,
        (e: { code: number; message: string }) => [e.code, e.message],
      );
    expect(await refusal([{ name: 'sh', command: '/bin/sh', args: ['-c', 'echo hi'], env: [] }])).toEqual([
      -32602,
      expect.stringContaining('HUB_MCP_STDIO_COMMANDS'),
    ]);
    expect(await refusal([{ type: 'sse', name: 'old', url: 'http://127.0.0.1:1/sse', headers: [] }])).toEqual([
      -32602,
      expect.stringContaining('sse MCP servers are not supported'),
    ]);
    expect(await refusal([{ name: 'x', args: [] }])).toEqual([-32602, expect.stringContaining('mcpServers[0]')]);
  });
});

describe('live sessions in the log', () => {
  const liveFacts = async (sessionId: string) =>
    (await new EventStore(pool).readStream(tenant.tenantId, `acp-live:${sessionId}`)).events.map((e) => [
      e.type,
      (e.data as { clientId: string }).clientId,
      (e.data as { reason?: string }).reason ?? (e.data as { mode?: string }).mode ?? null,
    ]);

  it('attach, takeover, detach and a dropped connection are recorded, and a second ingress decides from them', async () => {
    const second = new HubProcess(['ingress'], {
      ...stack.baseEnv(),
      PORT: '0',
      HOST: '127.0.0.1',
      HUB_ACP_PERMISSION_TIMEOUT_MS: String(PERMISSION_TIMEOUT_MS),
    });
    try {
      const otherUrl = String((await second.waitForLog('ingress listening')).url).replace('[::1]', '127.0.0.1');
      const tui = client();
      const sessionId = await started(tui);
      await tui.request('session/attach', { sessionId, clientId: 'tui', mode: 'controller' });
      // Another ingress instance sees tui as the controller: no second controller, no prompt from an observer.
      const portal = client(otherUrl);
      await portal.request('initialize', { protocolVersion: 1 });
      await expect(portal.request('session/attach', { sessionId, clientId: 'portal', mode: 'controller' })).rejects.toEqual(
        expect.objectContaining({ data: expect.objectContaining({ reason: 'controller_already_attached', active_controller_id: 'tui' }) }),
      );
      await portal.request('session/attach', { sessionId, clientId: 'portal', mode: 'observer' });
      await expect(portal.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 1 + 1' }] })).rejects.toEqual(
        expect.objectContaining({ data: { reason: 'not_owner_or_not_authorized' } }),
      );
      expect(await portal.request('session/takeover', { sessionId, clientId: 'portal' })).toEqual(
        expect.objectContaining({ previous_controller_id: 'tui', active_controller_id: 'portal' }),
      );
      // ...and the first instance now refuses tui.
      await expect(tui.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 1 + 1' }] })).rejects.toEqual(
        expect.objectContaining({ data: { reason: 'not_owner_or_not_authorized' } }),
      );
      await portal.request('session/detach', { sessionId, clientId: 'portal', reason: 'done' });
      await tui.close();
      const deadline = Date.now() + 30_000;
      while (!(await liveFacts(sessionId)).some((f) => f[2] === 'client_exit') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await liveFacts(sessionId)).toEqual([
        ['AcpSessionCreated', undefined, null],
        ['AcpClientAttached', 'tui', 'controller'],
        ['AcpClientAttached', 'portal', 'observer'],
        ['AcpControlTakenOver', 'portal', null],
        ['AcpClientDetached', 'portal', 'done'],
        ['AcpClientDetached', 'tui', 'client_exit'],
      ]);
    } finally {
      await second.kill('SIGKILL');
    }
  });
});

describe('HUB_ACP_PERMISSION_TIMEOUT_MS', () => {
  it('a client that never answers is denied after the configured timeout (fail closed)', async () => {
    const c = client();
    const sessionId = await started(c);
    c.policy = () => new Promise(() => undefined);
    const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "t" to timeout.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const resolved = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'ApprovalResolved').map((e) => e.data);
    expect(resolved).toEqual([expect.objectContaining({ decision: 'denied', via: 'acp', reason: `no answer within ${PERMISSION_TIMEOUT_MS} ms` })]);
    expect(agentText(c, sessionId)).toContain('was denied');
  });
});
