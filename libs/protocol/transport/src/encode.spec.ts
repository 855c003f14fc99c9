import { DomainError, applyOps, initialHarnessView, initialHarnessState, type HarnessState, type HarnessView, type HubEvent, type Recorded } from '@hub/domain';
import { domainErrorFrame, encode, encodeBatch, errorFrame, internalErrorFrame, snapshot, WIRE_ERROR_CODES } from './encode';
import { ServerMessage, WIRE_ERROR_CODE_LIST } from './schema';

const actor = { type: 'api_key', id: 'k' } as const;
const fullTurn: HubEvent[] = [
  { type: 'SessionOpened', data: { sessionId: 's-1', openedVia: 'transport' } },
  { type: 'TurnRequested', data: { turnId: 't1', userMessageId: 't1:u', prompt: 'Weather?', context: {}, busyPolicy: 'enqueue' } },
  { type: 'TurnStarted', data: { turnId: 't1' } },
  { type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' } },
  { type: 'ThoughtDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c0', offset: 0, text: 'tool' } },
  {
    type: 'ToolCallStarted',
    data: { turnId: 't1', messageId: 't1:m', toolCallId: 'tc1', name: 'weather', input: {}, policy: 'ask', executor: 'hub' },
  },
  {
    type: 'ApprovalRequested',
    data: {
      turnId: 't1',
      approvalId: 'a1',
      toolCallId: 'tc1',
      toolName: 'weather',
      input: {},
      riskTier: 'low',
      reason: 'network',
      deadlineAt: null,
    },
  },
  {
    type: 'ApprovalResolved',
    data: { turnId: 't1', approvalId: 'a1', toolCallId: 'tc1', decision: 'approved', by: actor, via: 'transport', reason: null },
  },
  { type: 'ToolCallCompleted', data: { turnId: 't1', toolCallId: 'tc1', status: 'complete', output: '70F', durationMs: 5 } },
  { type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c1', offset: 0, text: 'Sunny' } },
  { type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c1', offset: 5, text: ', 70F.' } },
  { type: 'MessageCompleted', data: { turnId: 't1', messageId: 't1:m' } },
  {
    type: 'TurnCompleted',
    data: { turnId: 't1', text: 'Sunny, 70F.', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
  },
];

function record(events: HubEvent[], firstPosition = 1): Recorded[] {
  return events.map((event, i) => ({
    ...event,
    eventId: `e${i}`,
    tenantId: 'tenant-1',
    streamId: 'session-s-1',
    streamPosition: i,
    globalPosition: firstPosition + i,
    createdAt: '2025-01-01T00:00:00.000Z',
    metadata: { correlationId: 'corr-1' },
  }));
}

function encodeAll(events: Recorded[]): { view: HarnessView; frames: ServerMessage[] } {
  let view = initialHarnessView();
  const frames: ServerMessage[] = [];
  for (const event of events) {
    const out = encode(event, view);
    view = out.view;
    frames.push(...out.frames);
  }
  return { view, frames };
}

const set = (path: string[], value: unknown) => ({ type: 'set', path, value });

describe('encode: a full turn', () => {
  it('sends one delta per visible event, each with its event global position', () => {
    const { frames } = encodeAll(record(fullTurn, 41));
    const tc = ['messages', '1', 'toolCalls', '0'];
    expect(frames).toEqual([
      {
        type: 'delta',
        cursor: 43,
        operations: [set(['status'], 'running'), set(['messages', '0'], { id: 't1:u', role: 'user', content: 'Weather?', status: 'complete', turnId: 't1' })],
      },
      {
        type: 'delta',
        cursor: 44,
        operations: [set(['messages', '1'], { id: 't1:m', role: 'assistant', content: '', status: 'pending', turnId: 't1' })],
      },
      {
        type: 'delta',
        cursor: 46,
        operations: [set(['messages', '1', 'toolCalls'], [{ id: 'tc1', name: 'weather', status: 'running' }])],
      },
      {
        type: 'delta',
        cursor: 47,
        operations: [set([...tc, 'approval'], { id: 'a1', status: 'pending', riskTier: 'low', reason: 'network' })],
      },
      { type: 'delta', cursor: 48, operations: [set([...tc, 'approval', 'status'], 'approved')] },
      { type: 'delta', cursor: 49, operations: [set([...tc, 'status'], 'complete')] },
      {
        type: 'delta',
        cursor: 50,
        operations: [set(['messages', '1', 'status'], 'streaming'), { type: 'append-text', path: ['messages', '1', 'content'], value: 'Sunny' }],
      },
      { type: 'delta', cursor: 51, operations: [{ type: 'append-text', path: ['messages', '1', 'content'], value: ', 70F.' }] },
      { type: 'delta', cursor: 52, operations: [set(['messages', '1', 'status'], 'complete')] },
      { type: 'delta', cursor: 53, operations: [set(['status'], 'idle')] },
    ]);
  });

  it('encodes the same events to the same bytes on replay', () => {
    const once = JSON.stringify(encodeAll(record(fullTurn)).frames);
    expect(JSON.stringify(encodeAll(record(structuredClone(fullTurn))).frames)).toBe(once);
  });
});

describe('snapshot and errors', () => {
  it('snapshots the view state at a cursor', () => {
    const { view } = encodeAll(record(fullTurn));
    expect(snapshot(view, 13)).toEqual({ type: 'state', state: view.state, cursor: 13 });
    expect(snapshot(initialHarnessView(), 0)).toEqual({ type: 'state', state: { status: 'idle', messages: [] }, cursor: 0 });
  });

  it('builds error frames, with a cursor only when given', () => {
    expect(errorFrame('invalid_json', 'bad')).toEqual({ type: 'error', code: 'invalid_json', message: 'bad' });
    expect(errorFrame('session_busy', 'y', 9)).toEqual({ type: 'error', code: 'session_busy', message: 'y', cursor: 9 });
  });

  it('names domain errors on the wire and hides internal details', () => {
    expect(domainErrorFrame(new DomainError('SESSION_BUSY', 'session s-1 is running turn t1'))).toEqual({
      type: 'error',
      code: 'session_busy',
      message: 'session s-1 is running turn t1',
    });
    expect(domainErrorFrame(new DomainError('INTERNAL', 'db password wrong'))).toEqual({
      type: 'error',
      code: 'internal',
      message: 'internal error',
    });
  });

  it('a refusal for a used-up tenant limit says how long to wait (retryAfterMs), as an HTTP 429 says Retry-After', () => {
    const frame = domainErrorFrame(
      new DomainError('RATE_LIMITED', "this tenant's limit of 3 turns per minute is used up; retry in 12 s", { retryAfterMs: 11_500 }),
    );
    expect(frame).toEqual({
      type: 'error',
      code: 'rate_limited',
      message: "this tenant's limit of 3 turns per minute is used up; retry in 12 s",
      retryAfterMs: 11_500,
    });
    expect(ServerMessage.parse(frame)).toEqual(frame);
    // Only a whole, positive wait is told; other details never reach the wire.
    expect(domainErrorFrame(new DomainError('SESSION_BUSY', 'busy', { retryAfterMs: 'soon', turnId: 't1' }))).toEqual({
      type: 'error',
      code: 'session_busy',
      message: 'busy',
    });
    expect(domainErrorFrame(new DomainError('RATE_LIMITED', 'x', { retryAfterMs: 0.4 })).retryAfterMs).toBe(1);
  });

  it('maps every domain code into the one documented list of wire codes (issue 13, "Also")', () => {
    for (const code of Object.values(WIRE_ERROR_CODES)) expect(WIRE_ERROR_CODE_LIST).toContain(code);
    expect(Object.keys(WIRE_ERROR_CODES).some((c) => (WIRE_ERROR_CODE_LIST as readonly string[]).includes(c))).toBe(false);
  });

  it('hides what a provider or a queue library said, and names the correlation id instead', () => {
    expect(domainErrorFrame({ code: 'PROVIDER_DOWN', message: 'connect ECONNREFUSED 127.0.0.1:11434' }).message).not.toContain('127.0.0.1');
    expect(internalErrorFrame('corr-1')).toEqual({ type: 'error', code: 'internal', message: 'internal error (correlation id corr-1)' });
  });
});

describe('encodeBatch: the events handed over together, as one delta', () => {
  const applied = (frames: ServerMessage[], from: HarnessState = initialHarnessState()) =>
    frames.reduce((state, f) => (f.type === 'delta' ? applyOps(state, f.operations) : state), from);

  it('takes a client to the same state as one frame per event, with the last visible cursor', () => {
    const events = record(fullTurn, 41);
    const each = encodeAll(events);
    const together = encodeBatch(events, initialHarnessView());
    expect(together.frames).toHaveLength(1);
    expect(together.frames[0]).toMatchObject({ type: 'delta', cursor: each.frames[each.frames.length - 1].cursor });
    expect(applied(together.frames)).toEqual(applied(each.frames));
    expect(together.view).toEqual(each.view);
  });

  it('goes on from a view, and joins text appended to one message into one operation', () => {
    const events = record(fullTurn, 41);
    const cut = events.findIndex((e) => e.type === 'TextDelta');
    const before = encodeAll(events.slice(0, cut));
    const tail = encodeBatch(events.slice(cut), before.view);
    const appends = tail.frames.flatMap((f) => (f.type === 'delta' ? f.operations : [])).filter((op) => op.type === 'append-text');
    expect(appends).toEqual([{ type: 'append-text', path: ['messages', '1', 'content'], value: 'Sunny, 70F.' }]);
    expect(applied(tail.frames, applied(before.frames))).toEqual(applied(encodeAll(events).frames));
    // The view it started from is not changed under its owner.
    expect(before.view).toEqual(encodeAll(events.slice(0, cut)).view);
  });

  it('sends nothing for events nothing visible follows from', () => {
    expect(encodeBatch([], initialHarnessView()).frames).toEqual([]);
  });
});
