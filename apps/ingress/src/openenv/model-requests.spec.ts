import { buildModelMessages } from '@hub/agent';
import type { HubEvent, Recorded } from '@hub/domain';
import { ModelRequests } from './model-requests';

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const T = 't1';

/** A turn with a tool call (two model calls), then a wrapped-harness turn. */
const session: HubEvent[] = [
  { type: 'SessionOpened', data: { sessionId: 's', openedVia: 'openenv' } },
  { type: 'TurnRequested', data: { turnId: T, userMessageId: 'u1', prompt: 'calculate 6 * 7', context: {}, busyPolicy: 'reject' } },
  { type: 'TurnStarted', data: { turnId: T } },
  { type: 'MessageStarted', data: { turnId: T, messageId: 'm1', role: 'assistant' } },
  { type: 'ModelCallStarted', data: { turnId: T, callId: 'c0', step: 0, provider: 'offline', model: 'm', messageCount: 2, toolNames: ['calculator'] } },
  {
    type: 'ModelCallCompleted',
    data: {
      turnId: T,
      callId: 'c0',
      step: 0,
      text: '',
      toolCalls: [{ toolCallId: 'k1', name: 'calculator', input: { expression: '6 * 7' } }],
      finishReason: 'tool_calls',
      usage,
    },
  },
  {
    type: 'ToolCallStarted',
    data: { turnId: T, messageId: 'm1', toolCallId: 'k1', name: 'calculator', input: { expression: '6 * 7' }, policy: 'allow', executor: 'hub' },
  },
  { type: 'ToolCallCompleted', data: { turnId: T, toolCallId: 'k1', status: 'complete', output: '42', durationMs: 1 } },
  { type: 'ModelCallStarted', data: { turnId: T, callId: 'c1', step: 1, provider: 'offline', model: 'm', messageCount: 4, toolNames: ['calculator'] } },
  { type: 'TextDelta', data: { turnId: T, messageId: 'm1', callId: 'c1', offset: 0, text: '42' } },
  { type: 'ModelCallCompleted', data: { turnId: T, callId: 'c1', step: 1, text: '42', toolCalls: [], finishReason: 'stop', usage } },
  { type: 'TurnCompleted', data: { turnId: T, text: '42', stopReason: 'end_turn', usage } },
  { type: 'TurnRequested', data: { turnId: 't2', userMessageId: 'u2', prompt: 'now you, harness', context: {}, busyPolicy: 'reject' } },
  { type: 'TurnStarted', data: { turnId: 't2' } },
  { type: 'ModelCallStarted', data: { turnId: 't2', callId: 'h0', step: 0, provider: 'harness:acp', model: 'agent', messageCount: 1, toolNames: [] } },
];

const recorded: Recorded<HubEvent>[] = session.map((e, i) => ({
  ...e,
  eventId: `e${i}`,
  tenantId: 't',
  streamId: 'session-s',
  streamPosition: i + 1,
  globalPosition: 10 + i,
  createdAt: '2026-01-01T00:00:00.000Z',
  metadata: { correlationId: 'c' },
}));

describe('ModelRequests', () => {
  it("rebuilds each built-in model call's messages as the worker built them: the log before the call", () => {
    const requests = new ModelRequests(recorded);
    expect(requests.messagesOf('c0')).toEqual(buildModelMessages(recorded.slice(0, 4)));
    expect(requests.messagesOf('c1')).toEqual(buildModelMessages(recorded.slice(0, 8)));
    expect(requests.messagesOf('c1')?.slice(1)).toEqual([
      { role: 'user', content: 'calculate 6 * 7' },
      { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'k1', name: 'calculator', input: { expression: '6 * 7' } }] },
      { role: 'tool', toolCallId: 'k1', name: 'calculator', content: '42' },
    ]);
    expect(requests.messagesOf('c1')).toHaveLength(4); // the recorded messageCount
    // Asked again out of order: the view starts over for an earlier call.
    expect(requests.messagesOf('c0')).toEqual(buildModelMessages(recorded.slice(0, 4)));
  });

  it("a wrapped harness's call carries the turn's message as the hub handed it over; an unknown call is undefined", () => {
    const requests = new ModelRequests(recorded);
    expect(requests.messagesOf('h0')).toEqual([{ role: 'user', content: 'now you, harness' }]);
    expect(requests.messagesOf('nope')).toBeUndefined();
  });

  it('events added out of order (a live batch racing the history) are kept in log order', () => {
    const requests = new ModelRequests(recorded.slice(8));
    requests.add(recorded.slice(0, 8));
    expect(requests.messagesOf('c1')).toEqual(buildModelMessages(recorded.slice(0, 8)));
  });
});
