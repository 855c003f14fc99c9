import { HubStack } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';

// Watching a past run over ACP (issue 15): `session/load` with `_meta.replay.speed` sends a
// finished session's history as the same `session/update` notifications a plain load sends, paced
// at recorded time / speed, then answers; nothing runs because of it. Real ingress and worker
// processes on real Postgres and Redis, driven by the official SDK's client side.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
const open: AcpSdkClient[] = [];
let sessionId: string;
/** The session's events once it finished, and the time they span (first to last `createdAt`). */
let recorded: { count: number; spanMs: number };
/** What a plain `session/load` sends: the reference every replay is held to. */
let plain: AcpSdkClient['updates'];

beforeAll(async () => {
  // 20 ms per streamed word: 'long answer 150' records its text over about 3 s.
  stack = await HubStack.start({ label: 'acp_replay', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '20' } });
  tenant = await stack.createTenant('acme');
  const a = await client();
  sessionId = (await a.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] })).sessionId;
  for (const text of ['read notes.txt', 'long answer 150']) {
    expect((await a.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })).stopReason).toBe('end_turn');
  }
  const events = await stack.events(tenant.tenantId, sessionId);
  recorded = { count: events.length, spanMs: Date.parse(events[events.length - 1].createdAt) - Date.parse(events[0].createdAt) };
  const b = await client();
  await b.request('session/load', { sessionId, cwd: '/work', mcpServers: [] });
  // A copy: b goes on receiving the session's live updates.
  plain = [...b.updates];
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await stack?.stop();
});

async function client(): Promise<AcpSdkClient> {
  const c = AcpSdkClient.ws(stack.url, tenant.apiKey);
  open.push(c);
  await c.request('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'e2e-replay', version: '1' } });
  return c;
}

/** A `session/load` with `_meta.replay` on a new client: its updates, when each came, and how long the load took. */
async function replay(meta: unknown): Promise<{ c: AcpSdkClient; ms: number; at: number[] }> {
  const c = await client();
  const at: number[] = [];
  const started = performance.now();
  // When each update came: the client's list is polled while the load runs.
  let seen = 0;
  const poll = setInterval(() => {
    for (; seen < c.updates.length; seen++) at.push(performance.now() - started);
  }, 5);
  try {
    await c.request('session/load', { sessionId, cwd: '/work', mcpServers: [], _meta: { replay: meta } });
  } finally {
    clearInterval(poll);
  }
  return { c, ms: performance.now() - started, at };
}

describe('session/load with _meta.replay', () => {
  it('the session is finished, with history spread over measurable time', () => {
    expect(recorded.spanMs).toBeGreaterThan(1_500);
    expect(plain.length).toBeGreaterThan(20);
    expect(plain.map((u) => u.update.sessionUpdate)).toEqual(
      expect.arrayContaining(['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']),
    );
  });

  it('at speed 100 sends the same session/update list as a plain load, all before the answer', async () => {
    const { c, ms } = await replay({ speed: 100 });
    expect(c.updates).toEqual(plain);
    // Loose: the recorded span / 100 plus reading the log, far below the recorded span.
    expect(ms).toBeLessThan(recorded.spanMs / 2);
    expect(await stack.events(tenant.tenantId, sessionId)).toHaveLength(recorded.count);
  });

  it('at speed 1 (explicit, and the default of `true`) takes about the recorded time, spread over it', async () => {
    const fast = await replay({ speed: 100 });
    for (const meta of [{ speed: 1 }, true]) {
      const { c, ms, at } = await replay(meta);
      expect(c.updates).toEqual(plain);
      expect(ms).toBeGreaterThanOrEqual(recorded.spanMs * 0.5);
      expect(ms).toBeGreaterThan(fast.ms * 2);
      // Paced, not held and dumped: updates kept arriving over most of the span.
      expect(at[at.length - 1] - at[0]).toBeGreaterThanOrEqual(recorded.spanMs * 0.5);
    }
    expect(await stack.events(tenant.tenantId, sessionId)).toHaveLength(recorded.count);
  });

  it('refuses a bad speed with invalid params (-32602) and sends nothing', async () => {
    for (const meta of [{ speed: 0 }, { speed: -2 }, { speed: 1001 }, { speed: '100' }, { speed: null }, 'fast', 5]) {
      const c = await client();
      await expect(c.request('session/load', { sessionId, cwd: '/work', mcpServers: [], _meta: { replay: meta } })).rejects.toEqual(
        expect.objectContaining({ code: -32602 }),
      );
      // Nothing was opened: a later event of the session would not reach this client either.
      await new Promise((r) => setTimeout(r, 50));
      expect(c.updates).toEqual([]);
    }
    expect(await stack.events(tenant.tenantId, sessionId)).toHaveLength(recorded.count);
  });

  it('runs nothing because of the replay; a prompt after it runs as usual', async () => {
    const { c } = await replay({ speed: 200 });
    // Give anything the replay might have set off time to show in the log.
    await new Promise((r) => setTimeout(r, 500));
    expect(await stack.events(tenant.tenantId, sessionId)).toHaveLength(recorded.count);
    expect((await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 2 * 21' }] })).stopReason).toBe(
      'end_turn',
    );
    const after = await stack.events(tenant.tenantId, sessionId);
    expect(after.filter((e) => e.type === 'TurnStarted')).toHaveLength(3);
    // The new turn's updates come live, after the replayed history.
    expect(c.updates.slice(0, plain.length)).toEqual(plain);
    expect(c.updates.slice(plain.length).map((u) => u.update.sessionUpdate)).toEqual(expect.arrayContaining(['user_message_chunk', 'agent_message_chunk']));
  });
});
