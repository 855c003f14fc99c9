import { DomainError } from '../errors';
import type { HubEvent } from '../events/events';
import { foldSession, evolveSession, initialSessionState, type SessionState } from './session-state';

const actor = { type: 'worker', id: 'w-1' } as const;
const opened: HubEvent = { type: 'SessionOpened', data: { sessionId: 's-1', openedVia: 'acp' } };
const requested = (turnId: string): HubEvent => ({
  type: 'TurnRequested',
  data: { turnId, userMessageId: `${turnId}:u`, prompt: 'p', context: {}, busyPolicy: 'enqueue' },
});
const started = (turnId: string): HubEvent => ({ type: 'TurnStarted', data: { turnId } });
const approval = (approvalId: string): HubEvent => ({
  type: 'ApprovalRequested',
  data: {
    turnId: 't1',
    approvalId,
    toolCallId: `tc-${approvalId}`,
    toolName: 'shell',
    input: {},
    riskTier: 'medium',
    reason: 'r',
    deadlineAt: null,
  },
});
const resolved = (approvalId: string): HubEvent => ({
  type: 'ApprovalResolved',
  data: {
    turnId: 't1',
    approvalId,
    toolCallId: `tc-${approvalId}`,
    decision: 'approved',
    by: actor,
    via: 'transport',
    reason: null,
  },
});
const progress: HubEvent[] = [
  { type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' } },
  {
    type: 'ModelCallStarted',
    data: { turnId: 't1', callId: 'c1', step: 0, provider: 'offline', model: 'm', messageCount: 1, toolNames: [] },
  },
  { type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c1', offset: 0, text: 'hi' } },
  { type: 'ThoughtDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c1', offset: 0, text: 'hm' } },
  {
    type: 'ToolCallStarted',
    data: { turnId: 't1', messageId: 't1:m', toolCallId: 'tc', name: 'x', input: {}, policy: 'allow', executor: 'hub' },
  },
  { type: 'ToolCallUpdated', data: { turnId: 't1', toolCallId: 'tc', message: '50%' } },
  { type: 'ToolCallCompleted', data: { turnId: 't1', toolCallId: 'tc', status: 'complete', output: 'ok', durationMs: 3 } },
  { type: 'MessageCompleted', data: { turnId: 't1', messageId: 't1:m' } },
];

const activeOf = (state: SessionState) => (state.status === 'active' ? state.activeTurn : null);

describe('evolveSession', () => {
  it('starts new, and opens idle on SessionOpened', () => {
    expect(initialSessionState.status).toBe('new');
    const state = foldSession([opened]);
    expect(state).toMatchObject({ status: 'idle', sessionId: 's-1', queue: [] });
  });

  it('refuses a stream that does not begin with SessionOpened', () => {
    expect(() => evolveSession(initialSessionState, started('t1'))).toThrow(DomainError);
  });

  it('queues a request and activates it on TurnStarted', () => {
    const queued = foldSession([opened, requested('t1')]);
    expect(queued.status).toBe('idle');
    expect(queued.status !== 'new' && queued.queue.map((q) => q.turnId)).toEqual(['t1']);
    const active = evolveSession(queued, started('t1'));
    expect(activeOf(active)).toEqual({ turnId: 't1', status: 'running' });
    expect(active.status !== 'new' && active.queue).toEqual([]);
    expect(active.status !== 'new' && active.knownTurnIds.size).toBe(1);
  });

  it('ignores the turn progress events', () => {
    const before = foldSession([opened, requested('t1'), started('t1')]);
    expect(progress.reduce(evolveSession, before)).toBe(before);
  });

  it('awaits approval while any approval is pending, and runs again once all are resolved', () => {
    const base = [opened, requested('t1'), started('t1'), approval('a1'), approval('a2')];
    const two = foldSession(base);
    expect(activeOf(two)?.status).toBe('awaiting_approval');
    expect(two.status === 'active' && [...two.pendingApprovals.keys()]).toEqual(['a1', 'a2']);
    expect(activeOf(foldSession([...base, resolved('a1')]))?.status).toBe('awaiting_approval');
    const done = foldSession([...base, resolved('a1'), resolved('a2')]);
    expect(activeOf(done)?.status).toBe('running');
    expect(done.status !== 'new' && [...done.closedApprovals.keys()]).toEqual(['a1', 'a2']);
  });

  it('goes idle when the active turn ends, remembering how it ended', () => {
    const base = [opened, requested('t1'), started('t1')];
    const endings: [HubEvent, string][] = [
      [{ type: 'TurnFailed', data: { turnId: 't1', code: 'X', message: 'm', retryable: false } }, 'failed'],
      [{ type: 'TurnCancelled', data: { turnId: 't1', reason: 'user', by: actor } }, 'cancelled'],
      [
        {
          type: 'TurnCompleted',
          data: {
            turnId: 't1',
            text: '',
            stopReason: 'end_turn',
            usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          },
        },
        'completed',
      ],
    ];
    for (const [ending, outcome] of endings) {
      const state = foldSession([...base, ending]);
      expect(state.status).toBe('idle');
      expect(state.status !== 'new' && state.finishedTurns.get('t1')).toBe(outcome);
    }
  });

  it('keeps earlier queued turns queued when an interrupting turn starts', () => {
    const state = foldSession([
      opened,
      requested('t1'),
      started('t1'),
      requested('t2'),
      { type: 'TurnCancelled', data: { turnId: 't1', reason: 'interrupted', by: actor } },
      requested('t3'),
      started('t3'),
    ]);
    expect(activeOf(state)?.turnId).toBe('t3');
    expect(state.status !== 'new' && state.queue.map((q) => q.turnId)).toEqual(['t2']);
  });
});
