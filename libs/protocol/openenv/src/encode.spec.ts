import type { HubEvent, HubEventType, Recorded } from '@hub/domain';
import { encodeHarnessEventList } from './encode';
import { HarnessEvent } from './schema';

const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
const T = 't1';
const M = 't1:m';
const C = 't1:c0';

/** One of every hub event, in the order a turn with a tool call and an approval appends them. */
const turn: HubEvent[] = [
  { type: 'SessionOpened', data: { sessionId: 's', openedVia: 'openenv' } },
  { type: 'EpisodeReset', data: { env: 'e', episodeId: 'ep', seed: null } },
  { type: 'TurnRequested', data: { turnId: T, userMessageId: 'u', prompt: 'p', context: {}, busyPolicy: 'reject' } },
  { type: 'TurnStarted', data: { turnId: T } },
  { type: 'MessageStarted', data: { turnId: T, messageId: M, role: 'assistant' } },
  { type: 'ModelCallStarted', data: { turnId: T, callId: C, step: 0, provider: 'offline', model: 'm', messageCount: 1, toolNames: ['read_file'] } },
  { type: 'ThoughtDelta', data: { turnId: T, messageId: M, callId: C, offset: 0, text: 'hmm' } },
  {
    type: 'ModelCallCompleted',
    data: {
      turnId: T,
      callId: C,
      step: 0,
      text: '',
      toolCalls: [{ toolCallId: 'k1', name: 'write_file', input: { path: 'a' } }],
      finishReason: 'tool_calls',
      usage,
    },
  },
  { type: 'ToolCallStarted', data: { turnId: T, messageId: M, toolCallId: 'k1', name: 'write_file', input: { path: 'a' }, policy: 'ask', executor: 'hub' } },
  {
    type: 'ApprovalRequested',
    data: { turnId: T, approvalId: 'a1', toolCallId: 'k1', toolName: 'write_file', input: {}, riskTier: 'medium', reason: 'writes', deadlineAt: null },
  },
  {
    type: 'ApprovalVoted',
    data: {
      turnId: T,
      approvalId: 'a1',
      toolCallId: 'k1',
      decision: 'approved',
      by: { type: 'api_key', id: 'j' },
      via: 'openenv',
      reason: null,
      approvals: 1,
      required: 2,
    },
  },
  {
    type: 'ApprovalResolved',
    data: { turnId: T, approvalId: 'a1', toolCallId: 'k1', decision: 'approved', by: { type: 'api_key', id: 'k' }, via: 'openenv', reason: null },
  },
  { type: 'ToolCallUpdated', data: { turnId: T, toolCallId: 'k1', message: 'writing' } },
  {
    type: 'ReminderQueued',
    data: {
      reminderId: 'r1',
      body: 'b',
      tags: [],
      dedupeKey: null,
      ttlTurns: null,
      roleHint: 'system',
      mode: 'finish_step',
      propagate: null,
      preserveOnCompact: false,
      source: 'host',
      meta: {},
    },
  },
  { type: 'ReminderRevoked', data: { reminderId: 'r0' } },
  { type: 'ReminderEmitted', data: { turnId: T, reminderId: 'r1', beforeStep: 1, renderedRole: 'system' } },
  { type: 'UserMessageInjected', data: { turnId: T, fromTurnId: 't9', messageId: 't9:u', text: 'steer', beforeStep: 1 } },
  { type: 'ToolCallCompleted', data: { turnId: T, toolCallId: 'k1', status: 'complete', output: 'ok', durationMs: 1 } },
  { type: 'TextDelta', data: { turnId: T, messageId: M, callId: 't1:c1', offset: 0, text: 'Done' } },
  { type: 'MessageCompleted', data: { turnId: T, messageId: M } },
  { type: 'TurnCompleted', data: { turnId: T, text: 'Done', stopReason: 'end_turn', usage } },
  { type: 'RewardComputed', data: { turnId: T, rubric: 'expected_answer', reward: 1, details: {} } },
  { type: 'TurnFailed', data: { turnId: 't2', code: 'PROVIDER_DOWN', message: 'down', retryable: true } },
  { type: 'TurnCancelled', data: { turnId: 't3', reason: 'user', by: { type: 'api_key', id: 'k' } } },
  { type: 'SessionForked', data: { parentSessionId: 'p', parentCursor: 90, parentStreamPosition: 3, copiedEvents: 3 } },
  { type: 'SessionRedriven', data: { sourceSessionId: 'p', sourceCursor: 90, target: { model: 'm2' }, tools: 'recorded', turnIds: [T] } },
  { type: 'TurnQueued', data: { turnId: 't4', reason: 'capacity', since: '2026-01-01T00:00:01.000Z' } },
];

const recorded = (events: HubEvent[]): Recorded<HubEvent>[] =>
  events.map((e, i) => ({
    ...e,
    eventId: `e${i}`,
    tenantId: 't',
    streamId: 'session-s',
    streamPosition: i + 1,
    globalPosition: 100 + i,
    createdAt: '2026-01-01T00:00:01.500Z',
    metadata: { correlationId: 'c' },
  }));

describe('encodeHarnessEventList', () => {
  const out = encodeHarnessEventList(recorded(turn));

  it('the test turn holds every hub event type (so the map is exercised for all of them)', () => {
    const all: Record<HubEventType, true> = {
      SessionOpened: true,
      TurnRequested: true,
      TurnStarted: true,
      MessageStarted: true,
      ModelCallStarted: true,
      TextDelta: true,
      ThoughtDelta: true,
      ModelCallCompleted: true,
      ToolCallStarted: true,
      ToolCallUpdated: true,
      ToolCallCompleted: true,
      ApprovalRequested: true,
      ApprovalVoted: true,
      ApprovalResolved: true,
      MessageCompleted: true,
      TurnCompleted: true,
      TurnFailed: true,
      TurnCancelled: true,
      RewardComputed: true,
      EpisodeReset: true,
      UserMessageInjected: true,
      ReminderQueued: true,
      ReminderRevoked: true,
      ReminderEmitted: true,
      SessionForked: true,
      SessionRedriven: true,
      TurnQueued: true,
    };
    expect(new Set(turn.map((e) => e.type))).toEqual(new Set(Object.keys(all)));
  });

  it('writes valid RFC 005 HarnessEvents with the hub cursor and Unix-seconds timestamps', () => {
    for (const e of out) expect(HarnessEvent.parse(e)).toEqual(e);
    expect(out[0]).toEqual({
      type: 'llm_request',
      timestamp: 1767225601.5,
      cursor: 105,
      data: expect.objectContaining({ model: 'm', tool_names: ['read_file'] }),
    });
    expect(out.map((e) => e.type)).toEqual([
      'llm_request',
      'llm_chunk',
      'llm_response',
      'tool_call',
      'text_output',
      'text_output',
      'text_output',
      'tool_result',
      'llm_chunk',
      'turn_complete',
      'error',
      'turn_complete',
      'error',
      'turn_complete',
      'text_output',
    ]);
  });

  it('a turn waiting for a worker is a text_output that names the wait', () => {
    expect(out.at(-1)?.data).toEqual({ text: 'waiting for a worker', queued: { turn_id: 't4', reason: 'capacity', since: '2026-01-01T00:00:01.000Z' } });
  });

  it('gives a tool result the tool name from its call, and a failed turn an error then turn_complete', () => {
    expect(out.find((e) => e.type === 'tool_result')?.data).toMatchObject({ tool_name: 'write_file', result: 'ok', error: null });
    expect(out.find((e) => e.type === 'tool_call')?.data).toMatchObject({ tool_name: 'write_file', arguments: { path: 'a' } });
    expect(out.find((e) => e.type === 'turn_complete')?.data).toMatchObject({ response: 'Done' });
    expect(out.filter((e) => e.type === 'error')[0].data).toEqual({ message: 'down', code: 'PROVIDER_DOWN', recoverable: true });
  });

  it("llm_request carries RFC 005 {messages, model}: the call's messages in the chat shape, [] when unknown", () => {
    const sent = [
      { role: 'system' as const, content: 'sys' },
      { role: 'user' as const, content: 'p' },
      { role: 'assistant' as const, content: '', toolCalls: [{ toolCallId: 'k1', name: 'write_file', input: { path: 'a' } }] },
      { role: 'tool' as const, toolCallId: 'k1', name: 'write_file', content: 'ok' },
    ];
    const [request] = encodeHarnessEventList(recorded(turn), (callId) => (callId === C ? sent : undefined));
    expect(request.data).toEqual({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'p' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'k1', type: 'function', function: { name: 'write_file', arguments: '{"path":"a"}' } }] },
        { role: 'tool', tool_call_id: 'k1', name: 'write_file', content: 'ok' },
      ],
      model: 'm',
      provider: 'offline',
      message_count: 1,
      tool_names: ['read_file'],
      step: 0,
    });
    expect(out[0].data['messages']).toEqual([]);
  });

  it('says done on turn_complete only when the harness signalled it', () => {
    expect(out.find((e) => e.type === 'turn_complete')?.data).not.toHaveProperty('done');
    const [done] = encodeHarnessEventList(
      recorded([{ type: 'TurnCompleted', data: { turnId: T, text: 'all set', stopReason: 'end_turn', usage, done: true } }]),
    );
    expect(done).toMatchObject({ type: 'turn_complete', data: { response: 'all set', done: true } });
  });
});
