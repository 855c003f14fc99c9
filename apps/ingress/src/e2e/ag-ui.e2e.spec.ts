import { HttpAgent, type AgentSubscriber } from '@ag-ui/client';
import { EventType, type BaseEvent, type Message } from '@ag-ui/core';
import { HubStack, TransportTestClient, hubJson } from '@hub/testing';

// POST /v1/ag-ui driven by the real @ag-ui/client HttpAgent against real ingress and worker
// processes (issue 27): a streamed answer, a tool call with its result, the HarnessState as
// STATE_SNAPSHOT + JSON Patch STATE_DELTAs that the client's own apply (fast-json-patch) turns
// into exactly GET /state, an approval interrupt answered by a resume run, a run error, client
// tools refused, and a dropped stream resumed without a gap or a duplicate.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'agui', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '2', HUB_APPROVAL_TTL_MS: '600000' } });
  tenant = await stack.createTenant('agui');
});
afterAll(() => stack?.stop());

const agentFor = (threadId: string, key = tenant.apiKey, initialMessages: Message[] = []) =>
  new HttpAgent({ url: `${stack.url}/v1/ag-ui`, headers: { Authorization: `Bearer ${key}` }, threadId, initialMessages });

/** Runs the agent once with a new user message (or none), keeping every event it got. */
async function runWith(
  agent: HttpAgent,
  prompt: string | null,
  params: Parameters<HttpAgent['runAgent']>[0] = {},
): Promise<{ events: BaseEvent[]; error?: Error }> {
  if (prompt !== null) agent.addMessage({ id: `u-${Math.random().toString(36).slice(2)}`, role: 'user', content: prompt });
  const events: BaseEvent[] = [];
  const subscriber: AgentSubscriber = { onEvent: ({ event }) => void events.push(event) };
  try {
    await agent.runAgent(params, subscriber);
    return { events };
  } catch (e) {
    return { events, error: e as Error };
  }
}

async function hubState(sessionId: string): Promise<unknown> {
  const res = await fetch(`${stack.url}/v1/sessions/${sessionId}/state`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: unknown }).state;
}

const ofType = (events: BaseEvent[], type: EventType) => events.filter((e) => e.type === type) as unknown as Record<string, unknown>[];
const lastAssistant = (agent: HttpAgent) => [...agent.messages].reverse().find((m) => m.role === 'assistant');

describe('HttpAgent against /v1/ag-ui', () => {
  it('streams an answer: RUN_STARTED, text in several chunks, RUN_FINISHED; the state events rebuild GET /state exactly', async () => {
    const agent = agentFor('ag-stream');
    const { events, error } = await runWith(agent, 'hello there');
    expect(error).toBeUndefined();
    expect(events[0]?.type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(ofType(events, EventType.TEXT_MESSAGE_CONTENT).length).toBeGreaterThan(1);
    expect(lastAssistant(agent)?.content).toMatch(/^You said: "hello there"/);
    expect(ofType(events, EventType.STATE_SNAPSHOT)).toHaveLength(1);
    expect(ofType(events, EventType.STATE_DELTA).length).toBeGreaterThan(1);
    expect(agent.state).toEqual(await hubState('ag-stream'));
    expect(agent.state).toMatchObject({ status: 'idle' });
  });

  it('a run sent again (same runId, same message) is the same turn: it ends at once with the answer, appending nothing', async () => {
    const input = {
      threadId: 'ag-again',
      runId: 'run-again',
      messages: [{ id: 'u-again', role: 'user' as const, content: 'hello once' }],
      tools: [],
      context: [],
    };
    const send = async () => {
      const res = await fetch(`${stack.url}/v1/ag-ui`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(input),
      });
      expect(res.status).toBe(200);
      return (await res.text())
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    };
    const first = await send();
    const before = await stack.countAllEvents();
    const again = await send();
    expect(await stack.countAllEvents()).toBe(before);
    expect(again.map((e) => e['type'])).toEqual([EventType.RUN_STARTED, EventType.MESSAGES_SNAPSHOT, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED]);
    expect(again.at(-1)).toEqual(first.at(-1));
    // The same runId with a message the hub does not know: the command id is the run's, so it is
    // still the first turn (nothing appended), and the run ends with it instead of waiting.
    input.messages[0] = { id: 'u-again-2', role: 'user', content: 'hello once' };
    const third = await send();
    expect(await stack.countAllEvents()).toBe(before);
    expect(third.map((e) => e['type'])).toEqual([EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED]);
    expect(third.at(-1)).toEqual(first.at(-1));
  });

  it("carries the request's X-Correlation-ID into the turn's events, each naming ag-ui as its protocol", async () => {
    const agent = new HttpAgent({
      url: `${stack.url}/v1/ag-ui`,
      headers: { Authorization: `Bearer ${tenant.apiKey}`, 'X-Correlation-ID': 'agui-corr-1' },
      threadId: 'ag-corr',
    });
    expect((await runWith(agent, 'hello')).error).toBeUndefined();
    const events = await stack.events(tenant.tenantId, 'ag-corr');
    const requested = events.find((e) => e.type === 'TurnRequested');
    expect(requested?.metadata).toMatchObject({ correlationId: 'agui-corr-1', protocol: 'ag-ui' });
    expect(events.filter((e) => e.metadata.correlationId === 'agui-corr-1').map((e) => e.type)).toEqual(
      expect.arrayContaining(['TurnRequested', 'TurnStarted', 'TurnCompleted']),
    );
  });

  it('a tool call with its result, and the answer made from it; a second run on the thread continues the same session', async () => {
    const agent = agentFor('ag-tools');
    const { events, error } = await runWith(agent, 'calculate 6*7');
    expect(error).toBeUndefined();
    const [start] = ofType(events, EventType.TOOL_CALL_START);
    expect(start).toMatchObject({ toolCallName: 'calculator' });
    expect(ofType(events, EventType.TOOL_CALL_ARGS).map((e) => JSON.parse(String(e['delta'])))).toEqual([{ expression: '6*7' }]);
    expect(ofType(events, EventType.TOOL_CALL_RESULT)).toEqual([expect.objectContaining({ toolCallId: start?.['toolCallId'], content: '42' })]);
    expect(agent.messages.find((m) => m.role === 'tool')).toMatchObject({ toolCallId: start?.['toolCallId'], content: '42' });
    expect(lastAssistant(agent)?.content).toContain('The result is 42.');
    expect(agent.state).toEqual(await hubState('ag-tools'));
    const again = await runWith(agent, 'hello again');
    expect(again.error).toBeUndefined();
    expect(agent.state).toEqual(await hubState('ag-tools'));
    expect((agent.state as { messages: unknown[] }).messages).toHaveLength(4);
  });

  it('an approval ends the run with an interrupt; a resume run answers it and streams the rest of the same turn', async () => {
    const agent = agentFor('ag-approve');
    const first = await runWith(agent, 'write "hi" to notes.txt');
    expect(first.error).toBeUndefined();
    expect(first.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({ reason: 'tool_approval', toolCallId: expect.any(String), responseSchema: expect.any(Object) }),
    ]);
    expect(agent.state).toEqual(await hubState('ag-approve'));
    expect(agent.state).toMatchObject({ status: 'running' });
    const interrupt = agent.pendingInterrupts[0];
    const resumed = await runWith(agent, null, { resume: [{ interruptId: interrupt?.id ?? '', status: 'resolved', payload: { decision: 'approved' } }] });
    expect(resumed.error).toBeUndefined();
    expect(ofType(resumed.events, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: interrupt?.toolCallId, content: 'wrote 2 bytes to notes.txt' }),
    ]);
    expect(resumed.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(lastAssistant(agent)?.content).toContain('Done: wrote 2 bytes to notes.txt.');
    const state = await hubState('ag-approve');
    expect(agent.state).toEqual(state);
    expect(JSON.stringify(state)).toContain('"status":"approved"');
  });

  it('an approval answered elsewhere (the console inbox route): another AG-UI frontend attaching to the thread and a transport client see the same answer', async () => {
    const agent = agentFor('ag-cross');
    const first = await runWith(agent, 'delete notes.txt');
    const approvalId = agent.pendingInterrupts[0]?.id ?? '';
    expect(first.events.at(-1)).toMatchObject({ outcome: { type: 'interrupt' } });
    const watcher = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'ag-cross' });
    await watcher.waitFor('snapshot', (x) => x.state !== null);
    // A frontend that opens the thread while the approval waits is told so, as an interrupt.
    const early = agentFor('ag-cross');
    const waiting = await runWith(early, null);
    expect(waiting.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'interrupt', interrupts: [expect.objectContaining({ id: approvalId })] },
    });
    const answer = await fetch(`${stack.url}/v1/sessions/ag-cross/approvals/${approvalId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'denied', reason: 'not today' }),
    });
    expect(answer.status).toBe(200);
    const other = agentFor('ag-cross');
    const watched = await runWith(other, null);
    expect(watched.error).toBeUndefined();
    expect(ofType(watched.events, EventType.MESSAGES_SNAPSHOT)).toHaveLength(1);
    expect(watched.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
    await watcher.waitFor('the turn to end', (x) => x.state?.status === 'idle');
    expect(lastAssistant(other)?.content).toBe(watcher.lastAssistant()?.content);
    expect(lastAssistant(other)?.content).toContain('was denied');
    expect(other.state).toEqual(watcher.state);
    await watcher.close();
  });

  it('a failed turn is RUN_ERROR with the public message; the next run works and its state has no error key (issue 27)', async () => {
    const agent = agentFor('ag-fail');
    const failed = await runWith(agent, 'fail with auth');
    expect(ofType(failed.events, EventType.RUN_ERROR)).toEqual([expect.objectContaining({ code: 'PROVIDER_AUTH', message: expect.any(String) })]);
    expect(await hubState('ag-fail')).toMatchObject({ status: 'error', error: expect.any(String) });
    const next = await runWith(agent, 'hello after the failure');
    expect(next.error).toBeUndefined();
    const state = await hubState('ag-fail');
    expect(Object.hasOwn(state as object, 'error')).toBe(false);
    expect(agent.state).toEqual(state);
  });

  it('client-side tools are refused with 422 problem+json CLIENT_TOOLS_UNSUPPORTED, and nothing is appended', async () => {
    const before = await stack.countAllEvents();
    const agent = agentFor('ag-client-tools');
    const { error } = await runWith(agent, 'hello', {
      tools: [{ name: 'confirm', description: 'asks the user', parameters: { type: 'object', properties: {} } }],
    });
    expect((error as Error & { status?: number }).status).toBe(422);
    expect(JSON.parse(String((error as Error & { payload?: unknown }).payload))).toMatchObject({
      code: 'CLIENT_TOOLS_UNSUPPORTED',
      path: '$.tools[0]',
      status: 422,
    });
    expect(await stack.countAllEvents()).toBe(before);
  });
});

describe('a key revoked during a run', () => {
  it('ends the run with RUN_ERROR UNAUTHENTICATED (an AG-UI event, not a foreign frame), and the key is refused after', async () => {
    const other = await stack.createTenant('agui-revoked');
    const agent = agentFor('ag-revoked', other.apiKey);
    agent.addMessage({ id: 'u-revoked', role: 'user', content: 'slow long answer 400' });
    const errors: Record<string, unknown>[] = [];
    let contents = 0;
    const run = agent
      .runAgent(
        {},
        {
          onTextMessageContentEvent: () => void (++contents === 3 && void stack.revokeKey(other.keyPrefix)),
          onRunErrorEvent: ({ event }) => void errors.push(event as unknown as Record<string, unknown>),
        },
      )
      .catch((e: unknown) => e);
    await run;
    expect(errors).toEqual([expect.objectContaining({ type: EventType.RUN_ERROR, code: 'UNAUTHENTICATED' })]);
    const after = await runWith(agentFor('ag-revoked', other.apiKey), null);
    expect((after.error as Error & { status?: number }).status).toBe(401);
  });
});

describe("the tenant's openSockets limit", () => {
  it('counts an open run stream: a second run is 429 problem+json RATE_LIMITED with Retry-After while the first streams', async () => {
    const t = await stack.createTenant('agui-sockets');
    expect((await hubJson('PUT', `${stack.url}/v1/admin/limits`, t.apiKey, { openSockets: 1 })).status).toBe(200);
    const first = agentFor('ag-sockets-1', t.apiKey);
    let refused: Response | undefined;
    let contents = 0;
    first.addMessage({ id: 'u-sockets-1', role: 'user', content: 'slow long answer 40' });
    await first.runAgent(
      {},
      {
        onTextMessageContentEvent: async () => {
          if (++contents !== 2) return;
          refused = await fetch(`${stack.url}/v1/ag-ui`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ threadId: 'ag-sockets-2', runId: 'r2', messages: [{ id: 'u2', role: 'user', content: 'hello' }], tools: [], context: [] }),
          });
        },
      },
    );
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused?.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await stack.events(t.tenantId, 'ag-sockets-2')).length).toBe(0);
  });
});

describe('a dropped stream', () => {
  /** Reads an SSE response until `stop` says so; returns the frames (with their ids) read. */
  async function readFrames(res: Response, stop: (frames: { id?: number; event: Record<string, unknown> }[]) => boolean) {
    const frames: { id?: number; event: Record<string, unknown> }[] = [];
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const parts = buffer.split('\n\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) {
        const id = /^id: (\d+)$/m.exec(part)?.[1];
        const data = part
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (data) frames.push({ ...(id ? { id: Number(id) } : {}), event: JSON.parse(data) as Record<string, unknown> });
      }
      if (stop(frames)) {
        await reader.cancel();
        break;
      }
    }
    return frames;
  }
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${stack.url}/v1/ag-ui`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.apiKey}`, 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  const text = (frames: { event: Record<string, unknown> }[]) =>
    frames
      .filter((f) => f.event['type'] === EventType.TEXT_MESSAGE_CONTENT)
      .map((f) => String(f.event['delta']))
      .join('');

  it('resumes after Last-Event-ID with exactly the missed events: no gap, no duplicate', async () => {
    const input = {
      threadId: 'ag-drop',
      runId: 'run-drop',
      messages: [{ id: 'u-drop', role: 'user', content: 'slow long answer 60' }],
      tools: [],
      context: [],
    };
    const first = await readFrames(await post(input), (f) => f.filter((x) => x.event['type'] === EventType.TEXT_MESSAGE_CONTENT).length >= 5);
    const lastId = Math.max(...first.filter((f) => f.id !== undefined).map((f) => f.id as number));
    // What the client holds: every frame up to the last one with an id (frames after it are re-sent).
    const held = first.slice(0, first.findIndex((f) => f.id === lastId) + 1);
    const rest = await readFrames(await post(input, { 'Last-Event-ID': String(lastId) }), () => false);
    expect(rest[0]?.event['type']).toBe(EventType.RUN_STARTED);
    expect(rest.map((f) => f.event['type'])).not.toContain(EventType.MESSAGES_SNAPSHOT);
    expect(rest.at(-1)?.event['type']).toBe(EventType.RUN_FINISHED);
    const words = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(' ');
    expect(text(held) + text(rest)).toBe(words);
    // The new run opens (RUN_STARTED, STATE_SNAPSHOT, the message reopened) current at the cursor it
    // resumed after, and says so on its last frame; every event after that has its own, later id.
    const opening = rest.findIndex((f) => f.id !== undefined);
    expect(rest[opening]?.id).toBe(lastId);
    expect(rest.slice(0, opening + 1).map((f) => f.event['type'])).toEqual([EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.TEXT_MESSAGE_START]);
    const ids = [...held, ...rest.slice(opening + 1)].map((f) => f.id).filter((id): id is number => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const state = (await hubState('ag-drop')) as { messages: { content: string }[] };
    expect(state.messages.at(-1)?.content).toBe(words);
  });

  it('an HttpAgent that reconnects (same thread, the prompt it already sent) gets MESSAGES_SNAPSHOT and the rest of the same turn, not a second turn', async () => {
    const agent = agentFor('ag-reconnect');
    let contents = 0;
    agent.addMessage({ id: 'u-reconnect', role: 'user', content: 'slow long answer 40' });
    await agent.runAgent({}, { onTextMessageContentEvent: () => void (++contents === 5 && agent.abortRun()) }).catch(() => undefined);
    expect(contents).toBeGreaterThanOrEqual(5);
    const again = agentFor(
      'ag-reconnect',
      tenant.apiKey,
      agent.messages.filter((m) => m.role === 'user'),
    );
    const { events, error } = await runWith(again, null);
    expect(error).toBeUndefined();
    expect(ofType(events, EventType.MESSAGES_SNAPSHOT)).toHaveLength(1);
    const words = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(' ');
    expect(lastAssistant(again)?.content).toBe(words);
    expect(again.state).toEqual(await hubState('ag-reconnect'));
    const turns = (await stack.events(tenant.tenantId, 'ag-reconnect')).filter((e) => e.type === 'TurnRequested');
    expect(turns).toHaveLength(1);
  });
});
