import { z } from 'zod';
import { HarnessEventType } from '@hub/protocol-openenv';
import {
  HubStack,
  OpenEnvWs,
  TransportTestClient,
  hubJson,
  openEnvFixture as fixture,
  testAllowEntry,
  testHarnessCommand,
  type WireJson as Json,
} from '@hub/testing';

// OpenEnv (issue #6) against real ingress and worker processes on real Postgres and Redis: the
// hub driven exactly as OpenEnv's Python client drives a server (HTTP and /ws, the fixtures'
// shapes), RFC 005's /harness stream, rubrics, done/max_turns, and bad input.

jest.setTimeout(120_000);

// The stdio command that runs tools/test-harnesses/mcp-echo-server.ts, as bin/hub runs the hub.
const mcpEchoServerCommand = (variant: 'a' | 'b') => ({ command: testHarnessCommand('mcp-echo-server.ts', variant), env: {} });

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  // The operator allows exactly the test MCP server (interpreter + script) as a stdio command.
  const allow = { HUB_MCP_STDIO_COMMANDS: testAllowEntry(mcpEchoServerCommand('a').command.slice(0, 4)) };
  stack = await HubStack.start({ label: 'openenv', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1', ...allow }, ingressEnv: allow });
  tenant = await stack.createTenant('trainer');
});
afterAll(() => stack?.stop());

const http = (method: string, route: string, body?: unknown, apiKey = tenant.apiKey) => hubJson(method, `${stack.url}/v1/openenv/${route}`, apiKey, body);

const configure = (env: string, config: unknown) => http('PUT', env, config);

/** A `/ws` or `/harness` socket of the tenant (or of `apiKey`'s). */
const Ws = { open: (pathname: string, apiKey = tenant.apiKey) => OpenEnvWs.open(stack.url, pathname, apiKey) };

/** RFC 005 `HarnessEvent` as its pydantic model checks it: a known type, a Unix timestamp, a data dict. */
const RfcHarnessEvent = z.object({ type: HarnessEventType, timestamp: z.number(), data: z.record(z.string(), z.unknown()) });

const llmRequests = (obs: Json): Json[] => (obs['observation']['turn_events'] as Json[]).filter((e) => e['type'] === 'llm_request');

describe("simulation mode over HTTP, as OpenEnv's HTTP client drives it", () => {
  beforeAll(async () => {
    const r = await configure('calc', { description: 'arithmetic', rubric: { kind: 'expected_answer', expected: '42' }, max_turns: 3 });
    expect(r.status).toBe(200);
  });

  it('reset → step → step → state over a multi-turn episode that keeps its conversation; max_turns ends it', async () => {
    const reset = await http('POST', 'calc/reset', fixture('http/reset-request.example.json'));
    expect(reset.status).toBe(200);
    expect(Object.keys(reset.body).sort()).toEqual(Object.keys(fixture('http/reset-response.200.example.json') as Json).sort());
    expect(reset.body).toMatchObject({ reward: null, done: false, observation: { episode_id: 'episode-001' } });

    const s1 = await http('POST', 'calc/step', { action: { message: 'calculate 6 * 7' }, timeout_s: 60 });
    expect(s1.status).toBe(200);
    expect(s1.body).toMatchObject({ reward: 1, done: false, observation: { turn_number: 1, status: 'completed' } });
    expect(s1.body['observation']['response']).toContain('42');
    const types = (s1.body['observation']['turn_events'] as Json[]).map((e) => e['type']);
    expect(types).toEqual(expect.arrayContaining(['llm_request', 'llm_response', 'tool_call', 'tool_result', 'turn_complete']));
    expect(types.at(-1)).toBe('turn_complete');
    // RFC 005 llm_request {messages, model}: the request as the model saw it, in the chat shape.
    const [ask, afterTool] = llmRequests(s1.body).map((e) => e['data']);
    expect(ask['messages']).toHaveLength(ask['message_count']);
    expect(ask['messages'][0]).toEqual({ role: 'system', content: expect.any(String) });
    expect(ask['messages'].at(-1)).toEqual({ role: 'user', content: 'calculate 6 * 7' });
    expect(afterTool['messages']).toHaveLength(afterTool['message_count']);
    const [call, result] = (afterTool['messages'] as Json[]).slice(-2);
    expect(call).toEqual({
      role: 'assistant',
      content: expect.any(String),
      tool_calls: [{ id: expect.any(String), type: 'function', function: { name: 'calculator', arguments: expect.any(String) } }],
    });
    expect(JSON.parse(call['tool_calls'][0]['function']['arguments'])).toEqual({ expression: '6 * 7' });
    expect(result).toEqual({ role: 'tool', tool_call_id: call['tool_calls'][0]['id'], name: 'calculator', content: expect.stringContaining('42') });
    const cursors = (s1.body['observation']['turn_events'] as Json[]).map((e) => e['cursor'] as number);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);

    const s2 = await http('POST', 'calc/step', { action: { message: 'and now say hello' } });
    expect(s2.body).toMatchObject({ reward: 0, done: false, observation: { turn_number: 2 } });
    // The harness keeps the conversation: turn 2's model call sees turn 1's messages too.
    expect(llmRequests(s2.body)[0]['data']['message_count']).toBeGreaterThan(llmRequests(s1.body)[0]['data']['message_count']);

    expect((await http('GET', 'calc/state')).body).toMatchObject({ episode_id: 'episode-001', step_count: 2 });
    const s3 = await http('POST', 'calc/step', { action: { message: 'what is 40 + 2' } });
    expect(s3.body).toMatchObject({ reward: 1, done: true, observation: { turn_number: 3 } });
    const s4 = await http('POST', 'calc/step', { action: { message: 'one more' } });
    expect(s4.status).toBe(409);
    expect(s4.body['detail']).toMatch(/done/);

    const traj = await http('GET', 'calc/trajectory');
    expect((traj.body['events'] as Json[]).filter((e) => e['type'] === 'turn_complete')).toHaveLength(3);
    // The trajectory's llm_request is the step's, and turn 2's model call saw turn 1's conversation.
    const trajRequests = (traj.body['events'] as Json[]).filter((e) => e['type'] === 'llm_request');
    expect(trajRequests.slice(0, 2)).toEqual(llmRequests(s1.body));
    expect(llmRequests(s2.body)[0]['data']['messages'].slice(0, afterTool['messages'].length)).toEqual(afterTool['messages']);
    // Rewards and the reset are facts in the episode's log, beside its turns.
    expect((traj.body['rewards'] as Json[]).map((r) => [r['rubric'], r['reward']])).toEqual([
      ['expected_answer', 1],
      ['expected_answer', 0],
      ['expected_answer', 1],
    ]);
    const logged = await stack.events(tenant.tenantId, traj.body['session_id'] as string);
    expect(logged.slice(0, 2).map((e) => e.type)).toEqual(['SessionOpened', 'EpisodeReset']);
    expect(logged[1].data).toMatchObject({ env: 'calc', episodeId: 'episode-001' });
    const rewards = logged.filter((e) => e.type === 'RewardComputed');
    expect(rewards.map((e) => (e.data as Json)['reward'])).toEqual([1, 0, 1]);
    // Each reward follows its turn's end: scored after the turn, outside the harness's loop.
    for (const r of rewards) {
      const turnId = (r.data as Json)['turnId'];
      const end = logged.findIndex((e) => e.type === 'TurnCompleted' && (e.data as Json)['turnId'] === turnId);
      expect(end).toBeGreaterThanOrEqual(0);
      expect(logged.indexOf(r)).toBeGreaterThan(end);
    }

    // A reset starts a fresh conversation: the first model call sees one message again.
    await http('POST', 'calc/reset', fixture('http/reset-request.empty.json'));
    expect((await http('GET', 'calc/state')).body).toMatchObject({ step_count: 0 });
    const fresh = await http('POST', 'calc/step', { action: { message: 'hello' } });
    expect(llmRequests(fresh.body)[0]['data']['message_count']).toBe(llmRequests(s1.body)[0]['data']['message_count']);
  });

  it("a step cut off by timeout_s ends with the turn's end: error then turn_complete, as the trajectory shows", async () => {
    await configure('slow', { max_turns: 5 });
    await http('POST', 'slow/reset', {});
    const s = await http('POST', 'slow/step', { action: { message: 'slow long answer 400' }, timeout_s: 1 });
    expect(s.status).toBe(200);
    const events = s.body['observation']['turn_events'] as Json[];
    expect(s.body['observation']).toMatchObject({ status: 'cancelled', error: { code: 'TIMEOUT' } });
    expect(events.slice(-2).map((e) => [e['type'], e['data']['status'] ?? e['data']['code']])).toEqual([
      ['error', 'CANCELLED'],
      ['turn_complete', 'cancelled'],
    ]);
    expect(events.some((e) => e['type'] === 'llm_chunk')).toBe(true); // it had started answering
    const traj = await http('GET', 'slow/trajectory');
    const strip = (list: Json[]) => list.map((e) => JSON.stringify([e['type'], e['cursor']]));
    expect(strip(traj.body['events'] as Json[])).toEqual(strip(events));
  });

  it('serves health, metadata and schema in upstream shapes', async () => {
    expect((await http('GET', 'calc/health')).body).toEqual({ status: 'healthy' });
    expect((await http('GET', 'calc/metadata')).body).toMatchObject({ name: 'calc', description: 'arithmetic' });
    const schema = (await http('GET', 'calc/schema')).body;
    expect(Object.keys(schema).sort()).toEqual(Object.keys(fixture('http/schema-response.200.example.json') as Json).sort());
  });
});

describe("simulation mode over /ws, as OpenEnv's default client drives it", () => {
  beforeAll(() => configure('notes', { rubric: { kind: 'tool_usage', required: ['read_file'] } }));

  it("reset → step → step → state with the fixtures' frames; bad frames get OpenEnv error codes", async () => {
    const c = await Ws.open('/v1/openenv/notes/ws');
    expect(await c.ask(fixture('ws/client-step.json'))).toMatchObject({ type: 'error', data: { code: 'SESSION_ERROR' } });
    const reset = await c.ask(fixture('ws/client-reset-episode.json'));
    expect(reset).toMatchObject({ type: 'observation', data: { done: false, reward: null, observation: { episode_id: 'ws_test' } } });
    const s1 = await c.ask({ type: 'step', data: { message: 'read notes.txt' } });
    expect(s1).toMatchObject({ type: 'observation', data: { reward: 1, done: false, observation: { turn_number: 1 } } });
    expect(s1['data']['observation']['response']).toContain('Remember to water the plants');
    const s2 = await c.ask(fixture('ws/client-step.json'));
    expect(s2['data']['observation']['turn_number']).toBe(2);
    expect(s2['data']['reward']).toBe(1); // tool_usage looks at the whole episode
    const state = await c.ask(fixture('ws/client-state.json'));
    expect(state).toMatchObject({ type: 'state', data: { episode_id: 'ws_test', step_count: 2 } });

    expect(await c.ask({ type: 'dance' })).toEqual({ type: 'error', data: { code: 'UNKNOWN_TYPE', message: expect.any(String) } });
    expect(await c.ask('{not json')).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
    expect(await c.ask({ type: 'step', data: { value: 1 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await c.ask({ type: 'step', data: { message: '' } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });

    // The episode is a hub session: the Harness transport WebSocket watches it.
    const watcher = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: state['data']['session_id'] });
    await watcher.waitFor('snapshot', (x) => x.state !== null);
    expect(watcher.state?.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['read notes.txt', 'ws_step']);
    await watcher.close();

    c.ws.send(JSON.stringify(fixture('ws/client-close.json')));
    await c.until('close', () => c.closeCode !== null);
    expect(c.closeCode).toBe(1000);
  });

  it('closes an oversized frame with 1009 and refuses an unknown environment', async () => {
    const c = await Ws.open('/v1/openenv/notes/ws');
    c.ws.send(JSON.stringify({ type: 'step', data: { message: 'x'.repeat(2 * 1024 * 1024) } }));
    await c.until('close', () => c.closeCode !== null);
    expect(c.closeCode).toBe(1009);
    const u = await Ws.open('/v1/openenv/nope/ws');
    await u.until('close', () => u.closeCode !== null);
    expect(u.frames[0]).toMatchObject({ type: 'error', data: { code: 'FACTORY_ERROR' } });
  });
});

describe('production mode: WS /harness', () => {
  beforeAll(() => configure('calc', { rubric: { kind: 'expected_answer', expected: '42' }, max_turns: 3 }));

  it("streams RFC 005 HarnessEvents with cursors as the turn runs, and can watch a trainer's episode", async () => {
    const h = await Ws.open('/v1/openenv/calc/harness');
    h.ws.send('calculate 2 * 21'); // taken even before the stream is open
    await h.until('turn_complete', () => h.frames.some((f) => f['type'] === 'turn_complete'));
    const events = h.frames;
    // Every frame is an RFC 005 HarnessEvent, as a strict client checks it; the episode's ids ride
    // in the first event's data.
    for (const e of events) expect(RfcHarnessEvent.safeParse(e).error).toBeUndefined();
    expect(events[0]['data']['episode']).toEqual({ episode_id: expect.any(String), session_id: expect.any(String), env: 'calc' });
    expect(events.slice(1).some((e) => 'episode' in e['data'])).toBe(false);
    expect(events.map((e) => e['type'])).toEqual(expect.arrayContaining(['llm_request', 'llm_chunk', 'tool_call', 'tool_result', 'turn_complete']));
    expect(events.every((e) => typeof e['cursor'] === 'number')).toBe(true);
    expect(events.find((e) => e['type'] === 'tool_call')?.['data']).toMatchObject({ tool_name: 'calculator', arguments: { expression: '2 * 21' } });
    expect(events.find((e) => e['type'] === 'llm_request')?.['data']['messages'].at(-1)).toEqual({ role: 'user', content: 'calculate 2 * 21' });
    // A turn sent over /harness is scored too (no /step asked for it): its reward is in the log.
    const sessionId = h.frames[0]['data']['episode']['session_id'] as string;
    let rewards: Json[] = [];
    for (const deadline = Date.now() + 30_000; rewards.length === 0 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      rewards = (await stack.events(tenant.tenantId, sessionId)).filter((e) => e.type === 'RewardComputed').map((e) => e.data as Json);
    }
    expect(rewards).toEqual([expect.objectContaining({ rubric: 'expected_answer', reward: 1 })]);
    h.ws.close();

    await http('POST', 'calc/reset', { episode_id: 'watched' });
    const w = await Ws.open('/v1/openenv/calc/harness?episode_id=watched');
    await http('POST', 'calc/step', { action: { message: 'what is 6 * 7' } });
    await w.until('turn_complete', () => w.frames.some((f) => f['type'] === 'turn_complete'));
    expect(w.frames[0]['data']['episode']).toMatchObject({ episode_id: 'watched', env: 'calc' });
    expect(w.frames.find((f) => f['type'] === 'turn_complete')?.['data']['response']).toContain('42');
    w.ws.close();
  });
});

describe("bad input over HTTP, in OpenEnv's (FastAPI) error shapes", () => {
  beforeAll(() => configure('fresh', {}));

  it('step before reset, a malformed action, invalid JSON, an oversized body, an unknown environment, a bad config', async () => {
    expect(await http('POST', 'fresh/step', { action: { message: 'hi' } })).toEqual({ status: 409, body: { detail: expect.stringMatching(/reset/) } });
    expect(await http('POST', 'fresh/step', { action: { message: '' } })).toEqual({ status: 422, body: fixture('http/step-response.422.example.json') });
    const missing = await http('POST', 'fresh/step', fixture('http/step-request.example.json'));
    expect(missing.status).toBe(422);
    expect(missing.body['detail'][0]).toMatchObject({ type: 'missing', loc: ['body', 'action', 'message'] });
    expect(await http('POST', 'fresh/step', '{"action": ')).toMatchObject({ status: 422, body: { detail: [{ type: 'json_invalid' }] } });
    expect(await http('POST', 'fresh/step', { action: { message: 'x'.repeat(2 * 1024 * 1024) } })).toEqual({
      status: 413,
      body: { detail: 'Request body too large' },
    });
    expect((await http('POST', 'nope/reset', {})).status).toBe(404);
    const bad = await configure('broken', { rubric: { kind: 'vibes' } });
    expect(bad.status).toBe(422);
    expect(bad.body['detail'][0]).toMatchObject({ loc: ['body', 'rubric'] });
    // A wrapped harness runs a process on the workers: only a command the operator allows.
    const acp = await configure('wrapped', { harness: { name: 'agent', kind: 'acp', command: ['node', 'agent.js'] } });
    expect(acp.body['detail'][0]).toMatchObject({ loc: ['body', 'harness', 'command'] });
  });

  it('keeps environments per tenant', async () => {
    const other = await stack.createTenant('other');
    expect((await http('GET', 'calc/state', undefined, other.apiKey)).status).toBe(404);
    expect((await http('GET', 'calc/state', undefined, 'wrong-key')).status).toBe(401);
  });
});

describe("MCP tool injection: an environment's MCP servers give the agent their tools", () => {
  const echo = (name: string, variant: 'a' | 'b') => ({ name, transport: 'stdio', ...mcpEchoServerCommand(variant) });

  it('the agent calls an injected tool end to end; a clash with a built-in is prefixed env_; reset is never a tool', async () => {
    const put = await configure('mcp', { mcp_servers: [echo('echo', 'a')], rubric: { kind: 'tool_usage', required: ['echo'] } });
    expect(put.status).toBe(200);
    await http('POST', 'mcp/reset', {});
    const s1 = await http('POST', 'mcp/step', { action: { message: 'use echo with {"text": "hello mcp"}' } });
    expect(s1.body).toMatchObject({ reward: 1, observation: { status: 'completed' } });
    expect(s1.body['observation']['response']).toContain('echo: hello mcp');
    const events = s1.body['observation']['turn_events'] as Json[];
    expect(events.find((e) => e['type'] === 'tool_call')?.['data']).toMatchObject({
      tool_name: 'echo',
      executor: 'mcp:echo',
      arguments: { text: 'hello mcp' },
    });
    expect(events.find((e) => e['type'] === 'tool_result')?.['data']).toMatchObject({ result: 'echo: hello mcp' });
    const offered = llmRequests(s1.body)[0]['data']['tool_names'] as string[];
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'calculator', 'echo', 'env_calculator']));
    expect(offered).not.toContain('reset');

    const s2 = await http('POST', 'mcp/step', { action: { message: 'use env_calculator with {"expression": "2+2"}' } });
    expect(s2.body['observation']['response']).toContain('mcp calculator: 2+2');
    const traj = await http('GET', 'mcp/trajectory');
    expect((traj.body['rewards'] as Json[]).map((r) => r['reward'])).toEqual([1, 1]);

    // A turn sent on /harness gets the environment's MCP tools too.
    const h = await Ws.open('/v1/openenv/mcp/harness');
    h.ws.send('use echo with {"text": "over harness"}');
    await h.until('turn_complete', () => h.frames.some((f) => f['type'] === 'turn_complete'));
    expect(h.frames.find((f) => f['type'] === 'tool_result')?.['data']).toMatchObject({ tool_name: 'echo', result: 'echo: over harness' });
    h.ws.close();
  });

  it('refuses at configuration time one tool name with two schemas across servers, and a server that does not start', async () => {
    const conflict = await configure('mcp-bad', { mcp_servers: [echo('one', 'a'), echo('two', 'b')] });
    expect(conflict.status).toBe(422);
    expect(conflict.body['detail'][0]).toMatchObject({ loc: ['body', 'mcp_servers'], msg: expect.stringMatching(/echo.*one.*two/) });
    // A command the operator did not allow is refused before anything runs.
    const dead = await configure('mcp-bad', { mcp_servers: [{ name: 'x', transport: 'stdio', command: ['/bin/sh', '-c', 'touch /tmp/pwned'] }] });
    expect(dead.status).toBe(422);
    expect(dead.body['detail'][0]).toMatchObject({ loc: ['body', 'mcp_servers'], msg: expect.stringMatching(/not allowed on this hub/) });
    expect((await http('GET', 'mcp-bad')).status).toBe(404);
  });
});
