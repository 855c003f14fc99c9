import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { HttpAgent, type AgentSubscriber } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { HubStack, TransportTestClient, hubJson } from '@hub/testing';
import { a2aClient, collect, cursorOf, sendParams, stateOf, streamedText, userMessage } from '../a2a/testing/a2a-sdk';

// Issue 27: "A turn started over A2A is approved from the console inbox and streamed to an AG-UI
// client and a transport client at the same time, identical text on all three." Real clients
// only: @a2a-js/sdk starts the task, the console's own HTTP API (the inbox list and its answer
// route) approves it, @ag-ui/client's HttpAgent and the transport WebSocket follow the thread.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'a2a_cross', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '20', HUB_APPROVAL_TTL_MS: '600000' } });
  tenant = await stack.createTenant('cross');
});
afterAll(() => stack?.stop());

/** One AG-UI run of `agent` with no new message: it attaches to the thread's turn. */
async function attach(agent: HttpAgent): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  const subscriber: AgentSubscriber = { onEvent: ({ event }) => void events.push(event) };
  await agent.runAgent({}, subscriber);
  return events;
}
const assistantText = (agent: HttpAgent) => {
  const m = [...agent.messages].reverse().find((x) => x.role === 'assistant');
  return typeof m?.content === 'string' ? m.content : '';
};

it('an A2A task approved from the console inbox streams the same text to A2A, AG-UI and the transport', async () => {
  const session = 'cross-1';
  const a2a = await a2aClient(stack.url, tenant.apiKey);
  // The transport client follows the session before the A2A message opens it.
  const transport = await TransportTestClient.connect(stack.url, tenant.apiKey, { session });
  await transport.waitFor('snapshot', (x) => x.state !== null);

  // A2A starts the task; its stream ends where the task needs input.
  const message = userMessage('write "hello from a2a" to greeting.txt', { contextId: session });
  const first = await collect(a2a.sendMessageStream(sendParams(message)));
  expect(stateOf(first.at(-1) as StreamResponse)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const taskId = first[0].payload?.$case === 'task' ? first[0].payload.value.id : '';

  // The AG-UI frontend opens the thread: it is told the run waits (an interrupt), with the text so far.
  const waiting = await attach(new HttpAgent({ url: `${stack.url}/v1/ag-ui`, headers: { Authorization: `Bearer ${tenant.apiKey}` }, threadId: session }));
  expect(waiting.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });

  // A2A keeps following the task from its last cursor (no gap, no duplicate) while it waits.
  const following = collect(
    a2a.resubscribeTask({ tenant: '', id: taskId }, { serviceParameters: { 'Last-Event-ID': String(cursorOf(first.at(-1) as StreamResponse)) } }),
  );

  // The console inbox: the approval is listed there, and answered with its own route.
  let approvalId = '';
  for (let i = 0; i < 100 && !approvalId; i++) {
    const inbox = await hubJson('GET', `${stack.url}/v1/approvals?status=pending&sessionId=${session}`, tenant.apiKey);
    approvalId = String((inbox.body['approvals'] as { approvalId?: string }[] | undefined)?.[0]?.approvalId ?? '');
    if (!approvalId) await new Promise((r) => setTimeout(r, 100));
  }
  expect(approvalId).not.toBe('');
  const answered = await hubJson('POST', `${stack.url}/v1/sessions/${session}/approvals/${approvalId}`, tenant.apiKey, {
    decision: 'approved',
    reason: 'from the inbox',
  });
  expect(answered.status).toBe(200);

  // The AG-UI frontend runs again (a fresh HttpAgent: the old one holds the interrupt it was told
  // of, which its own checks would make it resume) and follows the turn to its end, as the other two do.
  const agui = new HttpAgent({ url: `${stack.url}/v1/ag-ui`, headers: { Authorization: `Bearer ${tenant.apiKey}` }, threadId: session });
  const rest = await attach(agui);
  expect(rest.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  const followed = await following;
  expect(stateOf(followed.at(-1) as StreamResponse)).toBe(TaskState.TASK_STATE_COMPLETED);
  await transport.waitFor('the turn to end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');

  const events = await stack.events(tenant.tenantId, session);
  const done = events.find((e) => e.type === 'TurnCompleted');
  const text = done?.type === 'TurnCompleted' ? done.data.text : '';
  expect(text).toMatch(/^I'll write .*Done: /s);
  expect({
    a2a: streamedText([...first, ...followed]),
    agui: assistantText(agui),
    transport: transport.lastAssistant()?.content,
  }).toEqual({ a2a: text, agui: text, transport: text });
  // Who approved, and over what: the inbox's HTTP API; the task started over A2A.
  expect(events.find((e) => e.type === 'ApprovalResolved')?.data).toEqual(
    expect.objectContaining({ decision: 'approved', via: 'internal', reason: 'from the inbox' }),
  );
  expect(events.find((e) => e.type === 'TurnRequested')?.metadata.protocol).toBe('a2a');
  await transport.close();
});
