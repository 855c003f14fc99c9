import type { EventOf, HubEvent } from '../events/events';

// Realistic session streams, as the decider and the runtime append them, for the projection's
// specs. Not exported from the lib.

const actor = { type: 'api_key', id: 'key-1' } as const;
const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
const m = (turnId: string) => `${turnId}:m`;

export const ev = {
  opened: (): HubEvent => ({ type: 'SessionOpened', data: { sessionId: 's-1', openedVia: 'transport' } }),
  requested: (turnId: string, prompt = `prompt of ${turnId}`): HubEvent => ({
    type: 'TurnRequested',
    data: { turnId, userMessageId: `${turnId}:u`, prompt, context: {}, busyPolicy: 'enqueue' },
  }),
  started: (turnId: string): HubEvent => ({ type: 'TurnStarted', data: { turnId } }),
  message: (turnId: string): HubEvent => ({
    type: 'MessageStarted',
    data: { turnId, messageId: m(turnId), role: 'assistant' },
  }),
  modelCall: (turnId: string, step: number): HubEvent => ({
    type: 'ModelCallStarted',
    data: { turnId, callId: `${turnId}:c${step}`, step, provider: 'offline', model: 'echo', messageCount: 1, toolNames: ['weather'] },
  }),
  text: (turnId: string, text: string, offset = 0, step = 0): HubEvent => ({
    type: 'TextDelta',
    data: { turnId, messageId: m(turnId), callId: `${turnId}:c${step}`, offset, text },
  }),
  thought: (turnId: string, text: string): HubEvent => ({
    type: 'ThoughtDelta',
    data: { turnId, messageId: m(turnId), callId: `${turnId}:c0`, offset: 0, text },
  }),
  modelDone: (turnId: string, step: number, text: string, finishReason: 'stop' | 'tool_calls'): HubEvent => ({
    type: 'ModelCallCompleted',
    data: { turnId, callId: `${turnId}:c${step}`, step, text, toolCalls: [], finishReason, usage },
  }),
  tool: (turnId: string, toolCallId: string, policy: 'allow' | 'ask' = 'allow'): HubEvent => ({
    type: 'ToolCallStarted',
    data: { turnId, messageId: m(turnId), toolCallId, name: 'weather', input: { city: 'NYC' }, policy, executor: 'hub' },
  }),
  toolUpdated: (turnId: string, toolCallId: string): HubEvent => ({
    type: 'ToolCallUpdated',
    data: { turnId, toolCallId, message: 'fetching' },
  }),
  toolDone: (turnId: string, toolCallId: string, status: 'complete' | 'error' | 'denied' = 'complete'): HubEvent => ({
    type: 'ToolCallCompleted',
    data: { turnId, toolCallId, status, output: status === 'complete' ? '{"temp":70}' : status, durationMs: 12 },
  }),
  approvalRequested: (turnId: string, approvalId: string, toolCallId: string): HubEvent => ({
    type: 'ApprovalRequested',
    data: {
      turnId,
      approvalId,
      toolCallId,
      toolName: 'weather',
      input: { city: 'NYC' },
      riskTier: 'high',
      reason: 'calls the network',
      deadlineAt: null,
    },
  }),
  approvalResolved: (turnId: string, approvalId: string, toolCallId: string, decision: 'approved' | 'denied'): HubEvent => ({
    type: 'ApprovalResolved',
    data: { turnId, approvalId, toolCallId, decision, by: actor, via: 'acp', reason: null },
  }),
  messageDone: (turnId: string): HubEvent => ({ type: 'MessageCompleted', data: { turnId, messageId: m(turnId) } }),
  completed: (turnId: string, text = ''): HubEvent => ({
    type: 'TurnCompleted',
    data: { turnId, text, stopReason: 'end_turn', usage },
  }),
  failed: (turnId: string, message = 'provider is down'): HubEvent => ({
    type: 'TurnFailed',
    data: { turnId, code: 'PROVIDER_DOWN', message, retryable: false },
  }),
  cancelled: (turnId: string, reason: EventOf<'TurnCancelled'>['data']['reason'] = 'user'): HubEvent => ({
    type: 'TurnCancelled',
    data: { turnId, reason, by: actor },
  }),
};

const begin = (turnId: string, prompt?: string) => [ev.requested(turnId, prompt), ev.started(turnId), ev.message(turnId)];

/** A turn that says something, calls a tool, and answers. */
export const textAndTool: HubEvent[] = [
  ev.opened(),
  ...begin('t1', 'Weather in NYC?'),
  ev.modelCall('t1', 0),
  ev.thought('t1', 'need the tool'),
  ev.text('t1', 'Let me '),
  ev.text('t1', 'check.', 7),
  ev.modelDone('t1', 0, 'Let me check.', 'tool_calls'),
  ev.tool('t1', 'tc1'),
  ev.toolUpdated('t1', 'tc1'),
  ev.toolDone('t1', 'tc1'),
  ev.modelCall('t1', 1),
  ev.text('t1', ' Sunny.', 0, 1),
  ev.modelDone('t1', 1, ' Sunny.', 'stop'),
  ev.messageDone('t1'),
  ev.completed('t1', 'Let me check. Sunny.'),
];

/** Two risky tool calls: the first approved, the second denied. */
export const approvals: HubEvent[] = [
  ev.opened(),
  ...begin('t1'),
  ev.tool('t1', 'tc1', 'ask'),
  ev.approvalRequested('t1', 'a1', 'tc1'),
  ev.approvalResolved('t1', 'a1', 'tc1', 'approved'),
  ev.toolDone('t1', 'tc1'),
  ev.tool('t1', 'tc2', 'ask'),
  ev.approvalRequested('t1', 'a2', 'tc2'),
  ev.approvalResolved('t1', 'a2', 'tc2', 'denied'),
  ev.toolDone('t1', 'tc2', 'denied'),
  ev.text('t1', 'Done.'),
  ev.messageDone('t1'),
  ev.completed('t1'),
];

export const failedTurn: HubEvent[] = [ev.opened(), ...begin('t1'), ev.text('t1', 'Partial'), ev.failed('t1')];

export const cancelledTurn: HubEvent[] = [ev.opened(), ...begin('t1'), ev.text('t1', 'Half an'), ev.cancelled('t1')];

/** A second turn submitted while the first runs, started when the first completes. */
export const queuedSecondTurn: HubEvent[] = [
  ev.opened(),
  ...begin('t1'),
  ev.requested('t2', 'and tomorrow?'),
  ev.text('t1', 'Sunny.'),
  ev.messageDone('t1'),
  ev.completed('t1'),
  ev.started('t2'),
  ev.message('t2'),
  ev.text('t2', 'Rain.'),
  ev.messageDone('t2'),
  ev.completed('t2'),
];

/** t2 queued, then t3 interrupts t1; t2 runs after t3; a queued t4 is cancelled unstarted. */
export const interrupt: HubEvent[] = [
  ev.opened(),
  ...begin('t1'),
  ev.text('t1', 'Thinking'),
  ev.requested('t2'),
  ev.requested('t4'),
  ev.cancelled('t1', 'interrupted'),
  ev.requested('t3', 'stop, do this instead'),
  ev.started('t3'),
  ev.message('t3'),
  ev.text('t3', 'OK.'),
  ev.messageDone('t3'),
  ev.cancelled('t4'),
  ev.completed('t3'),
  ev.started('t2'),
  ev.message('t2'),
  ev.failed('t2', 'rate limited'),
  ...begin('t5'),
  ev.text('t5', 'Back.'),
  ev.messageDone('t5'),
  ev.completed('t5'),
];

export const SCENARIOS: Record<string, HubEvent[]> = {
  textAndTool,
  approvals,
  failedTurn,
  cancelledTurn,
  queuedSecondTurn,
  interrupt,
};
