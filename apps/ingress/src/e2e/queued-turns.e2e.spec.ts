import WebSocket from 'ws';
import { HubProcess, HubStack, TransportTestClient } from '@hub/testing';
import type { DeltaOperation } from '@hub/domain';

// Issue 31 (ADR 0033): a turn that no worker can take yet is shown as waiting, in each protocol
// that has a place for it, and runs as usual once a worker starts. The stack starts with no
// worker at all, so the accepted turns can only wait.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'queued', workers: 0, workerEnv: { HUB_OFFLINE_DELAY_MS: '2' } });
  tenant = await stack.createTenant('waiting');
});
afterAll(() => stack?.stop());

/** A raw ACP client over `WS /v1/acp` (the SDK's strict parser would refuse Harn's `progress`). */
async function acpClient() {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  const got: {
    id?: number;
    method?: string;
    params?: { update?: { sessionUpdate: string; _meta?: { harn?: Record<string, unknown> } } };
    result?: unknown;
    error?: unknown;
  }[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  let next = 1;
  const until = async <T>(what: string, find: () => T | undefined, timeoutMs = 30_000): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const call = async (method: string, params: unknown): Promise<unknown> => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const m = await until(`the answer to ${method}`, () => got.find((x) => x.id === id && !x.method));
    if (m.error) throw Object.assign(new Error(method), { error: m.error });
    return m.result;
  };
  const updates = () => got.filter((m) => m.method === 'session/update').map((m) => m.params?.update ?? { sessionUpdate: '' });
  return { call, until, updates, close: () => ws.close() };
}

/** One OpenHarness v1 exchange; `dev.harnesshub` extensions as given. */
async function openHarness(context: Record<string, unknown>, hub: Record<string, unknown>) {
  const res = await fetch(`${stack.url}/v1/openharness`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.apiKey}` },
    body: JSON.stringify({ protocol_version: '1.0.0', request_id: `req-${Math.random()}`, request: { context, extensions: { 'dev.harnesshub': hub } } }),
  });
  const body = (await res.json()) as { response: { status: string; action_directives?: { action_type: string; payload?: Record<string, unknown> }[] } };
  return body.response;
}

const queuedOps = (c: TransportTestClient): DeltaOperation[] =>
  c.frames.flatMap((f) => (f.type === 'delta' ? f.operations : [])).filter((o) => o.path[0] === 'queued');

it('transport, ACP, OpenHarness and `hub chat` clients are told their turns wait for a worker; the turns run once one starts, and the wait is gone', async () => {
  const t = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'q-transport' });
  await t.waitFor('snapshot', (x) => x.state !== null);
  const submittedAt = Date.now();
  t.send([{ type: 'submit', prompt: 'calculate 2 * 21' }]);

  const acp = await acpClient();
  await acp.call('initialize', { protocolVersion: 1, clientCapabilities: { _meta: { harn: { sessionUpdateExtensions: ['progress'] } } } });
  const { sessionId } = (await acp.call('session/new', { cwd: '/', mcpServers: [] })) as { sessionId: string };
  const prompted = acp.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 1 + 1' }] });
  // OpenHarness answers a turn still running when its wait budget ends with our continue directive.
  const asked = openHarness({ session_id: 'q-openharness', user_intent: 'calculate 6 * 7' }, { wait_ms: 2500 });
  const chat = new HubProcess(['chat', '--session', 'q-chat', 'calculate 5 * 5'], { ...stack.baseEnv(), HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey });
  chat.child.stdin?.end();

  // Transport: `running`, then (after the grace period) the wait, in a delta and in a fresh snapshot.
  await t.waitFor('the queued indication', (x) => !!x.state?.queued);
  expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(900);
  expect(t.state).toMatchObject({ status: 'running', queued: { turnId: expect.any(String), reason: 'capacity', since: expect.any(String) } });
  expect(t.state?.messages.map((m) => m.role)).toEqual(['user']);
  const watcher = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'q-transport' });
  await watcher.waitFor('snapshot', (x) => x.state !== null);
  expect(watcher.state?.queued).toEqual(t.state?.queued);
  await watcher.close();

  // ACP: Harn `progress`, phase `queued`, for the client that takes it.
  const progress = await acp.until('the queued progress update', () =>
    acp.updates().find((u) => u.sessionUpdate === 'progress' && u._meta?.harn?.['phase'] === 'queued'),
  );
  expect(progress._meta?.harn).toEqual({
    phase: 'queued',
    message: 'waiting for a worker',
    data: { turnId: expect.any(String), reason: 'capacity', since: expect.any(String) },
  });

  const answered = await asked;
  const [next] = (answered.action_directives ?? []).filter((d) => d.action_type === 'dev.harnesshub.continue');
  expect(next?.payload).toEqual(
    expect.objectContaining({ queued: { reason: 'capacity', since: expect.any(String) }, message: expect.stringContaining('waiting for a worker') }),
  );

  const said = Date.now() + 20_000;
  while (!chat.stderr.includes('waiting for a worker') && Date.now() < said) await new Promise((r) => setTimeout(r, 100));
  expect(chat.stderr).toContain('waiting for a worker');

  await stack.addWorker();
  await t.waitFor('the turn to finish', (x) => x.state?.status === 'idle' && x.state.messages[1]?.status === 'complete');
  expect(t.state?.queued).toBeNull();
  expect(t.state?.messages[1]?.content).toContain('42');
  // The wait ended with the worker's first event, before the answer showed.
  expect(queuedOps(t).map((o) => (o.type === 'set' && o.value === null ? 'cleared' : 'shown'))).toEqual(['shown', 'cleared']);
  const fresh = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'q-transport' });
  await fresh.waitFor('snapshot', (x) => x.state !== null);
  expect(fresh.state).toEqual(t.state);
  await Promise.all([t.close(), fresh.close()]);

  expect(await prompted).toEqual(expect.objectContaining({ stopReason: 'end_turn' }));
  const kinds = acp.updates().map((u) => u.sessionUpdate);
  expect(kinds.indexOf('progress')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
  acp.close();

  expect(await chat.exited).toBe(0);
  expect(chat.stdout).toContain('25');

  const collected = await openHarness({ continuation: next?.payload?.['continuation'] }, { wait_ms: 30_000 });
  expect(collected.status).toBe('success');
  expect((collected.action_directives ?? []).map((d) => d.action_type)).toEqual(['render_message']);

  // The log holds one TurnQueued per waiting turn, before the worker's first event.
  const events = await stack.events(tenant.tenantId, 'q-transport');
  const types = events.map((e) => e.type);
  expect(types.filter((x) => x === 'TurnQueued')).toHaveLength(1);
  expect(types.indexOf('TurnQueued')).toBeLessThan(types.indexOf('MessageStarted'));
});

it('a turn a worker takes at once appends no TurnQueued', async () => {
  const t = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'q-capacity' });
  await t.waitFor('snapshot', (x) => x.state !== null);
  t.send([{ type: 'submit', prompt: 'calculate 3 * 3' }]);
  await t.waitFor('the turn to finish', (x) => x.state?.status === 'idle' && x.state.messages[1]?.status === 'complete');
  // Past the grace period: the look found the job taken and wrote nothing.
  await new Promise((r) => setTimeout(r, 1500));
  expect((await stack.events(tenant.tenantId, 'q-capacity')).map((e) => e.type)).not.toContain('TurnQueued');
  expect(queuedOps(t)).toEqual([]);
  expect(t.state).not.toHaveProperty('queued');
  await t.close();
});
