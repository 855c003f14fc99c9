import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  AgentCard,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { HubEvent, type Recorded } from '@hub/domain';
import { agentCard } from './card';
import { decode } from './decode';
import { encode, foldTask, initialTaskView, isInterrupted, isTerminal, taskFrame, taskOf, type TaskView } from './encode';
import { encodeError } from './errors';
import { parseTaskId, taskIdOf } from './ids';
import type { StreamResponse as Frame } from './schema';

// The library against the upstream client: every request fixture is what @a2a-js/sdk 1.3.0's
// own `toJSON` writes (fixtures/requests), every invalid one gets its JSON-RPC code, and every
// frame, task and card the encoders write is read back by the SDK's `fromJSON` and written again
// by its `toJSON` unchanged: our JSON is the SDK's canonical proto JSON, nothing it drops.

const FIXTURES = path.join(__dirname, 'fixtures');
const requests = readdirSync(path.join(FIXTURES, 'requests')).filter((f) => f.endsWith('.json'));
const load = (f: string) => JSON.parse(readFileSync(path.join(FIXTURES, 'requests', f), 'utf8')) as { method: string; params: Record<string, unknown> };
const ctx = { newId: () => 'fresh' };

describe('request fixtures (what the SDK client sends)', () => {
  it('are the SDK’s own serialisation: fromJSON → toJSON gives them back', () => {
    const types: Record<string, { fromJSON(o: unknown): unknown; toJSON(m: never): unknown }> = {
      SendMessage: SendMessageRequest,
      SendStreamingMessage: SendMessageRequest,
      GetTask: GetTaskRequest,
      SubscribeToTask: SubscribeToTaskRequest,
      CreateTaskPushNotificationConfig: TaskPushNotificationConfig,
      GetTaskPushNotificationConfig: GetTaskPushNotificationConfigRequest,
      ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequest,
      DeleteTaskPushNotificationConfig: DeleteTaskPushNotificationConfigRequest,
    };
    for (const f of requests) {
      const body = load(f);
      const t = types[body.method];
      if (t) expect([f, t.toJSON(t.fromJSON(body.params) as never)]).toEqual([f, body.params]);
    }
  });

  it.each(requests)('%s decodes', (f) => {
    const r = decode(load(f), ctx);
    if (!r.ok) throw new Error(`${f}: ${JSON.stringify(r.error)}`);
    expect(r.method).toBe(f.split('--')[0].replace('.json', ''));
  });

  it('a new message is a SubmitTurn in its own session, turn and command ids from the message id', () => {
    const r = decode(load('SendMessage--new-context.json'), ctx);
    expect(r.ok && r.call).toEqual({
      kind: 'send',
      stream: false,
      blocking: true,
      target: {
        kind: 'submit',
        commandId: 'a2a:a2a-m-1:m-1',
        command: {
          type: 'SubmitTurn',
          sessionId: 'a2a-m-1',
          turnId: 'a2a-m-1',
          prompt: 'calculate 2 * 21',
          context: { a2a: { messageId: 'm-1', contextId: 'a2a-m-1' } },
          busyPolicy: 'enqueue',
        },
      },
    });
  });

  it('a message on a task carries its decision: a data part, or the word alone', () => {
    const data = decode(load('SendStreamingMessage--approval-data-part.json'), ctx);
    expect(data.ok && data.call).toEqual(
      expect.objectContaining({
        stream: true,
        target: {
          kind: 'continue',
          task: { sessionId: 'ctx-1', turnId: 'a2a-m-2' },
          taskId: 'ctx-1/a2a-m-2',
          messageId: 'm-4',
          decision: { decision: 'approved', reason: 'fine' },
        },
      }),
    );
    const word = decode(load('SendMessage--approval-word.json'), ctx);
    expect(word.ok && word.call.kind === 'send' && word.call.target).toEqual(expect.objectContaining({ decision: { decision: 'denied' } }));
  });

  it('push configs: create, get, list and delete name the task; a config in a send rides with the new turn', () => {
    const created = decode(load('CreateTaskPushNotificationConfig.json'), ctx);
    expect(created.ok && created.call).toEqual({
      kind: 'push-set',
      task: { sessionId: 'ctx-1', turnId: 'a2a-m-2' },
      taskId: 'ctx-1/a2a-m-2',
      config: expect.objectContaining({ id: 'cfg-1', url: 'https://example.com/a2a-hook', token: 'client-token' }),
    });
    const got = decode(load('GetTaskPushNotificationConfig.json'), ctx);
    expect(got.ok && got.call).toEqual(expect.objectContaining({ kind: 'push-get', configId: 'cfg-1' }));
    const deleted = decode(load('DeleteTaskPushNotificationConfig.json'), ctx);
    expect(deleted.ok && deleted.call).toEqual(expect.objectContaining({ kind: 'push-delete', configId: 'cfg-1' }));
    const sent = decode(load('SendMessage--push-config.json'), ctx);
    expect(sent.ok && sent.call).toEqual(
      expect.objectContaining({
        kind: 'send',
        push: expect.objectContaining({ url: 'https://example.com/a2a-hook', authentication: { scheme: 'Bearer', credentials: 'client-secret' } }),
      }),
    );
  });

  it('returnImmediately is a non-blocking send', () => {
    const r = decode(load('SendMessage--return-immediately.json'), ctx);
    expect(r.ok && r.call).toEqual(expect.objectContaining({ blocking: false, historyLength: 1 }));
  });
});

describe('invalid requests', () => {
  const invalid = JSON.parse(readFileSync(path.join(FIXTURES, 'invalid-requests.json'), 'utf8')) as {
    name: string;
    body: unknown;
    version?: string;
    code: number;
    reason: string;
    field?: string;
  }[];
  it.each(invalid.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = decode(c.body, { ...ctx, ...(c.version ? { version: c.version } : {}) });
    if (r.ok) throw new Error(`${c.name} decoded`);
    const wire = encodeError(r.error, r.id);
    expect(wire.body.error.code).toBe(c.code);
    expect(wire.body.error.data[0]).toEqual(
      expect.objectContaining({ reason: c.reason, ...(c.field ? { metadata: expect.objectContaining({ field: c.field }) } : {}) }),
    );
    expect(wire.body.id).toBe(typeof c.body === 'object' && c.body !== null && 'id' in c.body ? (c.body as { id: unknown }).id : null);
  });
});

describe('task ids', () => {
  it('name the session and the turn, splitting at the first slash', () => {
    expect(parseTaskId(taskIdOf({ sessionId: 's.1:x', turnId: 'a2a-m/1' }))).toEqual({ sessionId: 's.1:x', turnId: 'a2a-m/1' });
    expect(parseTaskId('/t')).toBeNull();
    expect(parseTaskId('s/')).toBeNull();
    expect(parseTaskId('bad session/t')).toBeNull();
  });
});

// A turn that asks for an approval, is approved from elsewhere, and completes; and one that fails.
let pos = 100;
const meta = { correlationId: 'c', actor: { type: 'api_key' as const, id: 'k' }, protocol: 'a2a' as const };
function rec(type: string, data: Record<string, unknown>): Recorded<HubEvent> {
  const parsed = HubEvent.parse({ type, data });
  pos += 1;
  return {
    ...parsed,
    eventId: `e${pos}`,
    tenantId: 't',
    streamId: 'session-s1',
    streamPosition: pos,
    globalPosition: pos,
    createdAt: new Date(Date.UTC(2026, 10, 26, 12, 0, pos % 60)).toISOString(),
    metadata: meta,
  } as Recorded<HubEvent>;
}
const T = 'a2a-m-1';
const approval = {
  turnId: T,
  approvalId: 'ap-1',
  toolCallId: 'call-1',
  toolName: 'write_file',
  input: { path: 'a.txt', content: 'x' },
  riskTier: 'medium',
  reason: 'writes a file',
  deadlineAt: null,
};
const APPROVED_RUN = [
  rec('SessionOpened', { sessionId: 's1', openedVia: 'a2a' }),
  rec('TurnRequested', {
    turnId: T,
    userMessageId: `${T}:u`,
    prompt: 'write "x" to a.txt',
    context: { a2a: { messageId: 'm-1', contextId: 's1' } },
    busyPolicy: 'enqueue',
  }),
  rec('TurnQueued', { turnId: T, reason: 'capacity', since: '2026-11-26T12:00:00.000Z' }),
  rec('TurnStarted', { turnId: T }),
  rec('MessageStarted', { turnId: T, messageId: `${T}:m`, role: 'assistant' }),
  rec('TextDelta', { turnId: T, messageId: `${T}:m`, callId: `${T}:c0`, offset: 0, text: "I'll write " }),
  rec('TextDelta', { turnId: T, messageId: `${T}:m`, callId: `${T}:c0`, offset: 11, text: '1 bytes to a.txt.' }),
  rec('ToolCallStarted', {
    turnId: T,
    messageId: `${T}:m`,
    toolCallId: 'call-1',
    name: 'write_file',
    input: approval.input,
    policy: 'ask',
    executor: 'builtin',
  }),
  rec('ApprovalRequested', approval),
  rec('TurnRequested', { turnId: 'other', userMessageId: 'other:u', prompt: 'queued behind', context: {}, busyPolicy: 'enqueue' }),
  rec('ApprovalResolved', {
    turnId: T,
    approvalId: 'ap-1',
    toolCallId: 'call-1',
    decision: 'approved',
    by: { type: 'api_key', id: 'k2', name: 'ops' },
    via: 'internal',
    reason: null,
  }),
  rec('ToolCallCompleted', { turnId: T, toolCallId: 'call-1', status: 'complete', output: 'wrote 1 byte', durationMs: 3 }),
  rec('TextDelta', { turnId: T, messageId: `${T}:m`, callId: `${T}:c1`, offset: 0, text: 'Done: wrote 1 byte.' }),
  rec('MessageCompleted', { turnId: T, messageId: `${T}:m` }),
  rec('TurnCompleted', {
    turnId: T,
    text: "I'll write 1 bytes to a.txt.Done: wrote 1 byte.",
    stopReason: 'end_turn',
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  }),
];
const REF = { sessionId: 's1', turnId: T };

function run(events: readonly Recorded<HubEvent>[], view: TaskView = initialTaskView(REF)): { frames: Frame[]; view: TaskView; states: string[] } {
  const frames: Frame[] = [];
  for (const e of events) {
    const out = encode(e, view);
    frames.push(...out.frames);
    view = out.view;
  }
  return { frames, view, states: frames.flatMap((f) => ('statusUpdate' in f ? [f.statusUpdate.status.state] : [])) };
}
const textOf = (frames: Frame[]) =>
  frames.map((f) => ('artifactUpdate' in f ? (f.artifactUpdate.artifact.parts ?? []).map((p) => p.text ?? '').join('') : '')).join('');
const roundTrips = (type: { fromJSON(o: unknown): unknown; toJSON(m: never): unknown }, json: unknown) =>
  expect(type.toJSON(type.fromJSON(json) as never)).toEqual(json);

describe('encode', () => {
  it('a turn through approval to completion: the states A2A expects, the answer as one appended artifact', () => {
    const { frames, view, states } = run(APPROVED_RUN);
    expect(states).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expect(textOf(frames)).toBe("I'll write 1 bytes to a.txt.Done: wrote 1 byte.");
    const chunks = frames.flatMap((f) => ('artifactUpdate' in f ? [f.artifactUpdate] : []));
    expect(chunks.map((c) => [c.append ?? false, c.lastChunk ?? false])).toEqual([
      [false, false],
      [true, false],
      [true, false],
      [true, true],
    ]);
    const asked = frames.find((f) => 'statusUpdate' in f && f.statusUpdate.status.state === 'TASK_STATE_INPUT_REQUIRED');
    expect(asked && 'statusUpdate' in asked && asked.statusUpdate.status.message?.parts[1]).toEqual({
      data: expect.objectContaining({ approvalId: 'ap-1', toolName: 'write_file' }),
      mediaType: 'application/json',
    });
    expect(isTerminal(view)).toBe(true);
  });

  it('every frame carries its event’s global position as the cursor, never going back', () => {
    const cursors = run(APPROVED_RUN).frames.map(
      (f) => (Object.values(f)[0] as { metadata: Record<string, { cursor: number }> }).metadata['dev.harnesshub'].cursor,
    );
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(cursors.length - 1); // the completion's last chunk and status share its event
  });

  it('every frame, and the task, are canonical proto JSON for the SDK', () => {
    for (const f of run(APPROVED_RUN).frames) roundTrips(StreamResponse, f);
    roundTrips(Task, taskOf(foldTask(APPROVED_RUN, REF)));
  });

  it('resuming from any cursor (the task as of it, then the events after it) gives the same frames, no gap and no duplicate', () => {
    const whole = run(APPROVED_RUN).frames;
    for (const cut of APPROVED_RUN.map((e) => e.globalPosition)) {
      const before = run(APPROVED_RUN.filter((e) => e.globalPosition <= cut));
      const after = run(
        APPROVED_RUN.filter((e) => e.globalPosition > cut),
        foldTask(APPROVED_RUN, REF, cut),
      );
      expect([cut, [...before.frames, ...after.frames]]).toEqual([cut, whole]);
    }
  });

  it('GetTask of the folded log: completed, the answer artifact, the history with the client’s message id', () => {
    const task = taskOf(foldTask(APPROVED_RUN, REF));
    expect(task).toEqual(
      expect.objectContaining({
        id: 's1/a2a-m-1',
        contextId: 's1',
        status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }),
        artifacts: [{ artifactId: 'answer', name: 'answer', parts: [{ text: "I'll write 1 bytes to a.txt.Done: wrote 1 byte." }] }],
      }),
    );
    expect(task?.history?.map((m) => [m.role, m.messageId])).toEqual([
      ['ROLE_USER', 'm-1'],
      ['ROLE_AGENT', `${T}:${APPROVED_RUN.at(-1)?.globalPosition}`],
    ]);
    expect(taskOf(foldTask(APPROVED_RUN, REF), { historyLength: 0 })?.history).toBeUndefined();
    // The same task at the approval: input-required, the stream of a send would stop there.
    const asked = foldTask(APPROVED_RUN, REF, APPROVED_RUN[8].globalPosition);
    expect([asked.status?.state, isInterrupted(asked), isTerminal(asked)]).toEqual(['TASK_STATE_INPUT_REQUIRED', true, false]);
    expect(taskFrame(asked)).toEqual({ task: expect.objectContaining({ id: 's1/a2a-m-1' }) });
  });

  it('a failure and a cancel end the task, saying no more than the public message', () => {
    const failed = run([APPROVED_RUN[1], rec('TurnFailed', { turnId: T, code: 'INTERNAL', message: 'db at 10.0.0.3 refused', retryable: false })]);
    expect(failed.states.at(-1)).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(failed.frames)).not.toContain('10.0.0.3');
    const cancelled = run([APPROVED_RUN[1], rec('TurnCancelled', { turnId: T, reason: 'user', by: { type: 'api_key', id: 'k' } })]);
    expect([cancelled.states.at(-1), isTerminal(cancelled.view)]).toEqual(['TASK_STATE_CANCELED', true]);
  });

  it('is total: an event of every type, of this turn or none, encodes without throwing', () => {
    const types = HubEvent.options.map((o) => o.shape.type.value);
    const seen = new Set<string>();
    for (const e of APPROVED_RUN) seen.add(e.type);
    // The rest have no A2A counterpart; encode returns no frame for them (see the switch).
    expect(types.filter((t) => !seen.has(t)).length).toBeGreaterThan(0);
    expect(() => run(APPROVED_RUN)).not.toThrow();
  });
});

describe('the agent card', () => {
  const card = agentCard({
    url: 'https://hub.example.com/v1/a2a',
    version: '0.1.0',
    tools: [{ name: 'write_file', description: 'Writes a file.', policy: 'ask', executor: 'builtin' }],
  });
  it('is canonical AgentCard JSON: the JSON-RPC interface at v1.0, bearer security, a skill per tool', () => {
    roundTrips(AgentCard, card);
    const parsed = AgentCard.fromJSON(card);
    expect(parsed.supportedInterfaces).toEqual([{ url: 'https://hub.example.com/v1/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }]);
    expect(parsed.securitySchemes['bearer']?.scheme).toEqual({ $case: 'httpAuthSecurityScheme', value: expect.objectContaining({ scheme: 'Bearer' }) });
    expect(parsed.skills.map((s) => s.id)).toEqual(['chat', 'tool.write_file']);
    expect(parsed.capabilities).toEqual(expect.objectContaining({ streaming: true, pushNotifications: true }));
  });
});
