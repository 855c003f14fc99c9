import type { HubEvent, Recorded } from '@hub/domain';
import { HubStack, TransportTestClient, hubJson, type WireJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';

// Issue 15: fork and re-drive on the real stack. A parent session writes a file (approved),
// reads it, and writes it again; a fork after the read has the parent's transcript and the
// file as it was there, and goes on by itself; a fork inside a tool call is refused with the
// nearest valid cursors. The child shows the parent's transcript on every protocol that shows
// one (transport, HTTP state and events, ACP session/load, OpenEnv trajectory for a forked
// episode) and goes on over the others (Zene, OpenHarness) from the parent's conversation.
// A re-drive with the offline model and recorded tools reproduces the
// parent exactly, without asking for any approval. The stack's stop replays and verifies
// every session, the fork and the re-drives included.

jest.setTimeout(180_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let parentEvents: Recorded<HubEvent>[];

const api = (path: string, init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}) =>
  fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.key ?? tenant.apiKey}`, 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const connect = (session: string) => TransportTestClient.connect(stack.url, tenant.apiKey, { session });

/** Runs one prompt on `session` over the transport, approving every approval it asks for. */
async function turn(session: string, prompt: string): Promise<TransportTestClient> {
  const c = await connect(session);
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  const answered = new Set<string>();
  await c.waitFor('the answer', (x) => {
    for (const call of x.lastAssistant()?.toolCalls ?? []) {
      const id = call.approval?.status === 'pending' ? call.approval.id : undefined;
      if (id && !answered.has(id)) {
        answered.add(id);
        x.send([{ type: 'approve', approvalId: id }]);
      }
    }
    return (x.state?.messages.length ?? 0) >= before + 2 && x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete';
  });
  return c;
}

/** The cursor after the turn-ending event of the n-th turn (1-based) of a session's events. */
const afterTurn = (events: Recorded<HubEvent>[], n: number) => events.filter((e) => e.type === 'TurnCompleted')[n - 1].globalPosition;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'lineage' });
  tenant = await stack.createTenant('lineage');
  for (const prompt of ['write "one" to f.txt', 'read f.txt', 'write "two" to f.txt']) await (await turn('parent', prompt)).close();
  parentEvents = await stack.events(tenant.tenantId, 'parent');
});
afterAll(() => stack?.stop());

describe('fork', () => {
  it('at a turn boundary: the child has the transcript and the workspace as of there, goes on alone, and the parent is untouched', async () => {
    const at = afterTurn(parentEvents, 2);
    const res = await api('/v1/sessions/parent/fork', { method: 'POST', body: { at, sessionId: 'child' } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { sessionId: string; at: number; copiedEvents: number };
    const copied = parentEvents.filter((e) => e.globalPosition <= at);
    expect(body).toEqual(expect.objectContaining({ sessionId: 'child', parentSessionId: 'parent', at, copiedEvents: copied.length }));

    const child = await stack.events(tenant.tenantId, 'child');
    expect(child.map((e) => e.type)).toEqual([...copied.map((e) => e.type), 'SessionForked']);
    expect(child.at(-1)?.data).toEqual({ parentSessionId: 'parent', parentCursor: at, parentStreamPosition: copied.length, copiedEvents: copied.length });
    expect(child[0].data).toEqual({ sessionId: 'child', openedVia: 'transport' });
    expect(child[1].metadata).toEqual(
      expect.objectContaining({
        actor: copied[1].metadata.actor,
        forkedFrom: expect.objectContaining({ sessionId: 'parent', globalPosition: copied[1].globalPosition }),
      }),
    );

    // The transcript up to the fork, on the transport and over HTTP.
    const parentNow = await connect('parent');
    await parentNow.waitFor('snapshot', (x) => x.state !== null);
    const watcher = await connect('child');
    await watcher.waitFor('snapshot', (x) => x.state !== null);
    expect(watcher.state?.messages).toEqual(parentNow.state?.messages.slice(0, 4));
    const state = (await (await api('/v1/sessions/child/state')).json()) as { state: unknown };
    expect(state.state).toEqual(watcher.state);

    // It goes on by itself: the file is as it was at the fork, and the parent does not move.
    const parentCount = (await stack.events(tenant.tenantId, 'parent')).length;
    const read = await turn('child', 'read f.txt');
    expect(read.lastAssistant()?.content).toContain('one');
    expect(read.lastAssistant()?.content).not.toContain('two');
    expect((await stack.events(tenant.tenantId, 'parent')).length).toBe(parentCount);
    await Promise.all([parentNow.close(), watcher.close(), read.close()]);
  });

  it("the child replays the parent's history up to the fork over ACP session/load too", async () => {
    await api('/v1/sessions/parent/fork', { method: 'POST', body: { at: afterTurn(parentEvents, 2), sessionId: 'child-acp' } });
    const c = AcpSdkClient.ws(stack.url, tenant.apiKey);
    try {
      await c.request('initialize', { protocolVersion: 1 });
      await c.request('session/load', { sessionId: 'parent', cwd: '/work', mcpServers: [] });
      await c.request('session/load', { sessionId: 'child-acp', cwd: '/work', mcpServers: [] });
      // Cursors differ (the copies are new events); everything else is the parent's.
      const of = (id: string) =>
        c.updates
          .filter((u) => u.sessionId === id)
          .map((u) => JSON.parse(JSON.stringify(u.update, (k, v: unknown) => (k === 'cursor' ? undefined : v))) as unknown);
      const child = of('child-acp');
      expect(child.length).toBeGreaterThan(4);
      expect(child).toEqual(of('parent').slice(0, child.length));
      expect(of('parent').length).toBeGreaterThan(child.length);
    } finally {
      await c.close();
    }
  });

  it('over HTTP events the child has the copies, then SessionForked', async () => {
    const at = afterTurn(parentEvents, 2);
    expect((await api('/v1/sessions/parent/fork', { method: 'POST', body: { at, sessionId: 'child-http' } })).status).toBe(201);
    const page = (await (await api('/v1/sessions/child-http/events?limit=1000')).json()) as { events: { type: string; data: unknown }[] };
    const copied = parentEvents.filter((e) => e.globalPosition <= at);
    expect(page.events.map((e) => e.type)).toEqual([...copied.map((e) => e.type), 'SessionForked']);
    expect(page.events.slice(1, -1).map((e) => e.data)).toEqual(copied.slice(1).map((e) => e.data));
  });

  it("continued over Zene and OpenHarness, the model gets the parent's conversation up to the fork, and the workspace as of there", async () => {
    const at = afterTurn(parentEvents, 2);
    for (const id of ['child-zene', 'child-oh'])
      expect((await api('/v1/sessions/parent/fork', { method: 'POST', body: { at, sessionId: id } })).status).toBe(201);
    const zene = await api('/v1/zene', {
      method: 'POST',
      body: { protocol_version: 1, type: 'run', request_id: 'z1', session_id: 'child-zene', prompt: 'read f.txt', timeout_ms: 30_000 },
    });
    const zeneReply = (await zene.json()) as { ok: boolean; text: string };
    expect(zeneReply).toEqual(expect.objectContaining({ ok: true, text: expect.stringContaining('one') }));
    const oh = await api('/v1/openharness', {
      method: 'POST',
      body: { protocol_version: '1.0.0', request_id: 'o1', request: { context: { session_id: 'child-oh', user_intent: 'read f.txt' } } },
    });
    expect(oh.status).toBe(200);
    expect(JSON.stringify(await oh.json())).toContain('one');
    // The parent's third turn was asked with the first two in its context, as each child's first is.
    const firstCall = (events: Recorded<HubEvent>[], turn: number) => {
      const turnId = events.filter((e) => e.type === 'TurnRequested')[turn - 1]?.data as { turnId: string };
      return (events.find((e) => e.type === 'ModelCallStarted' && e.data.turnId === turnId.turnId)?.data as { messageCount: number }).messageCount;
    };
    const expected = firstCall(parentEvents, 3);
    expect(expected).toBeGreaterThan(firstCall(parentEvents, 1));
    for (const id of ['child-zene', 'child-oh']) expect([id, firstCall(await stack.events(tenant.tenantId, id), 3)]).toEqual([id, expected]);
  });

  it('of an OpenEnv episode: the child is an episode of the same environment, with the trajectory and rewards up to the fork, and steps on from there', async () => {
    const env = (route: string, body?: unknown) =>
      hubJson(body === undefined ? 'GET' : route.endsWith('branch') ? 'PUT' : 'POST', `${stack.url}/v1/openenv/${route}`, tenant.apiKey, body);
    expect((await env('branch', { description: 'forks', rubric: { kind: 'expected_answer', expected: '42' }, max_turns: 5 })).status).toBe(200);
    expect((await env('branch/reset', { episode_id: 'ep-parent' })).status).toBe(200);
    expect((await env('branch/step', { action: { message: 'calculate 6 * 7' } })).body).toMatchObject({ reward: 1 });
    expect((await env('branch/step', { action: { message: 'and now say hello' } })).body).toMatchObject({ reward: 0 });
    const parentTrajectory = (await env('branch/trajectory?episode_id=ep-parent')).body;
    const sessionId = parentTrajectory['session_id'] as string;
    // At rest after the first turn and its reward.
    const episodeEvents = await stack.events(tenant.tenantId, sessionId);
    const at = episodeEvents.find((e) => e.type === 'RewardComputed')?.globalPosition as number;
    const res = await api(`/v1/sessions/${sessionId}/fork`, { method: 'POST', body: { at } });
    expect(res.status).toBe(201);
    const fork = (await res.json()) as { env: string; episodeId: string; sessionId: string };
    expect(fork).toEqual(expect.objectContaining({ env: 'branch', episodeId: expect.any(String) }));

    const child = (await env(`branch/trajectory?episode_id=${fork.episodeId}`)).body;
    expect(child['session_id']).toBe(fork.sessionId);
    const strip = (events: WireJson[]) => events.map((e) => ({ ...e, cursor: undefined, timestamp: undefined }));
    const childEvents = strip(child['events'] as WireJson[]);
    expect(childEvents.length).toBeGreaterThan(3);
    expect(childEvents).toEqual(strip(parentTrajectory['events'] as WireJson[]).slice(0, childEvents.length));
    expect((child['rewards'] as WireJson[]).map((r) => [r['turn_id'], r['reward']])).toEqual([[expect.any(String), 1]]);
    // It is the environment's newest episode, and it goes on from turn 1; the parent does not move.
    expect((await env('branch/state')).body).toMatchObject({ episode_id: fork.episodeId, session_id: fork.sessionId, step_count: 1 });
    const step = await env('branch/step', { action: { message: 'what is 40 + 2' }, episode_id: fork.episodeId });
    expect(step.body).toMatchObject({ reward: 1, done: false, observation: { turn_number: 2, episode_id: fork.episodeId } });
    expect(((await env('branch/trajectory?episode_id=ep-parent')).body['rewards'] as WireJson[]).map((r) => r['reward'])).toEqual([1, 0]);
  });

  it('inside a tool call: refused, naming the nearest cursors a fork may be taken at', async () => {
    const started = parentEvents.find((e) => e.type === 'ToolCallStarted' && e.data.name === 'read_file');
    const res = await api('/v1/sessions/parent/fork', { method: 'POST', body: { at: started?.globalPosition } });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; nearestValidCursors: number[] };
    expect(problem.nearestValidCursors).toEqual([afterTurn(parentEvents, 1), afterTurn(parentEvents, 2)]);
    expect(problem.detail).toContain(`${afterTurn(parentEvents, 1)} and ${afterTurn(parentEvents, 2)}`);
  });

  it('onto an existing session, by a read-only key, or of an unknown session: refused, nothing written', async () => {
    const count = await stack.countAllEvents();
    expect((await api('/v1/sessions/parent/fork', { method: 'POST', body: { sessionId: 'parent' } })).status).toBe(409);
    expect((await api('/v1/sessions/nope/fork', { method: 'POST', body: {} })).status).toBe(404);
    expect((await api('/v1/sessions/parent/fork', { method: 'POST', body: { at: -1 } })).status).toBe(400);
    const viewer = (await (await api('/v1/admin/keys', { method: 'POST', body: { name: 'watcher', role: 'viewer' } })).json()) as { apiKey: string };
    const refused = await api('/v1/sessions/parent/fork', { method: 'POST', body: {}, key: viewer.apiKey });
    expect(refused.status).toBe(403);
    expect(await stack.countAllEvents()).toBe(count);
  });

  it('at the end by default, with a generated id; a repeat with the same Idempotency-Key is the same fork', async () => {
    const first = (await (await api('/v1/sessions/parent/fork', { method: 'POST', body: {}, headers: { 'idempotency-key': 'fork-1' } })).json()) as {
      sessionId: string;
      at: number;
    };
    expect(first.sessionId).toMatch(/^parent\.fork-[0-9a-f]{6}$/);
    expect(first.at).toBe(parentEvents.at(-1)?.globalPosition);
    const again = await api('/v1/sessions/parent/fork', { method: 'POST', body: { sessionId: first.sessionId }, headers: { 'idempotency-key': 'fork-1' } });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { sessionId: string }).sessionId).toBe(first.sessionId);
  });
});

describe('re-drive', () => {
  async function report(session: string) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = (await (await api(`/v1/sessions/${session}/redrive-report`)).json()) as {
        summary: { turns: number; same: number; different: number; pending: number };
        turns: {
          turnId: string;
          same: boolean;
          differences: string[];
          source: { model: string | null };
          rerun: { model: string | null; toolCalls: unknown[] } | null;
        }[];
      };
      if (r.summary.pending === 0 || Date.now() > deadline) return r;
      await new Promise((res) => setTimeout(res, 250));
    }
  }

  it('with the offline model and recorded tools reproduces the session exactly, asking no one', async () => {
    const res = await api('/v1/sessions/parent/redrive', { method: 'POST', body: { tools: 'recorded', sessionId: 'rerun' } });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual(
      expect.objectContaining({ sessionId: 'rerun', sourceSessionId: 'parent', turns: 3, tools: 'recorded', report: '/v1/sessions/rerun/redrive-report' }),
    );
    const r = await report('rerun');
    expect(r.summary).toEqual({ turns: 3, same: 3, different: 0, pending: 0 });
    const events = await stack.events(tenant.tenantId, 'rerun');
    expect(events.filter((e) => e.type === 'ApprovalRequested')).toHaveLength(0);
    const executors = events.filter((e) => e.type === 'ToolCallStarted').map((e) => (e.data as { executor: string }).executor);
    expect(executors).toEqual(['recorded', 'recorded', 'recorded']);
    expect(events[1]).toEqual(
      expect.objectContaining({
        type: 'SessionRedriven',
        data: expect.objectContaining({ sourceSessionId: 'parent', target: null, tools: 'recorded', turnIds: expect.any(Array) }),
      }),
    );
    // Same turn ids, so the same transcript, message for message (approvals aside: none were asked).
    const [a, b] = await Promise.all([connect('parent'), connect('rerun')]);
    await Promise.all([a.waitFor('snapshot', (x) => x.state !== null), b.waitFor('snapshot', (x) => x.state !== null)]);
    const strip = (s: typeof a.state) => s?.messages.map((m) => ({ ...m, toolCalls: m.toolCalls?.map(({ approval: _a, ...t }) => t) }));
    expect(strip(b.state)).toEqual(strip(a.state));
    await Promise.all([a.close(), b.close()]);
  });

  it('against another model with live tools: the model is the target, a write asks again, and the report shows it', async () => {
    const res = await api('/v1/sessions/parent/redrive', { method: 'POST', body: { model: 'offline-b', tools: 'live', sessionId: 'rerun-live' } });
    expect(res.status).toBe(202);
    // The first turn's write asks for approval again: answer it where any approver would.
    const c = await connect('rerun-live');
    const answered = new Set<string>();
    await c.waitFor(
      'all three turns',
      (x) => {
        for (const m of x.state?.messages ?? []) {
          for (const call of m.toolCalls ?? []) {
            const id = call.approval?.status === 'pending' ? call.approval.id : undefined;
            if (id && !answered.has(id)) {
              answered.add(id);
              x.send([{ type: 'approve', approvalId: id }]);
            }
          }
        }
        return (x.state?.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length ?? 0) === 3;
      },
      60_000,
    );
    await c.close();
    expect(answered.size).toBe(2);
    const r = await report('rerun-live');
    expect(r.summary).toEqual({ turns: 3, same: 3, different: 0, pending: 0 });
    expect(r.turns.map((t) => t.rerun?.model)).toEqual(['offline-b', 'offline-b', 'offline-b']);
    expect(r.turns[0].source.model).not.toBe('offline-b');
  });

  it('refuses recorded tools for a wrapped harness, a body with both targets, and a session that is not a re-drive', async () => {
    const harness = { kind: 'command', name: 'x', command: ['/bin/true'] };
    expect((await api('/v1/sessions/parent/redrive', { method: 'POST', body: { harness } })).status).toBe(400);
    expect((await api('/v1/sessions/parent/redrive', { method: 'POST', body: { harness, model: 'm', tools: 'live' } })).status).toBe(400);
    expect((await api('/v1/sessions/parent/redrive-report')).status).toBe(400);
  });
});
