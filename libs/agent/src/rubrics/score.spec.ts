import type { HubEvent } from '@hub/domain';
import { recordTurnReward, rewardFor, rubricInputOf, rubricOfTurn, type RewardLog } from './score';

// Scoring an ended turn from what the log holds: the rubric comes from the turn's request
// context, the input from its events, and a reward is recorded once per turn.

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const rubric = { kind: 'expected_answer', expected: '42' };
const requested = (turnId: string, context: Record<string, unknown>): HubEvent => ({
  type: 'TurnRequested',
  data: { turnId, userMessageId: `${turnId}:u`, prompt: `what is 6 * 7 (${turnId})`, context, busyPolicy: 'enqueue' },
});
const tool = (turnId: string, name: string): HubEvent => ({
  type: 'ToolCallStarted',
  data: { turnId, messageId: `${turnId}:m`, toolCallId: `${turnId}:${name}`, name, input: {}, policy: 'allow', executor: 'hub' },
});

const log: HubEvent[] = [
  requested('t1', { openenv: { env: 'calc', episode_id: 'e1', rubric } }),
  { type: 'TurnStarted', data: { turnId: 't1' } },
  tool('t1', 'calculator'),
  { type: 'TurnCompleted', data: { turnId: 't1', text: 'It is 42.', stopReason: 'end_turn', usage } },
  requested('t2', { openenv: { env: 'calc', episode_id: 'e1', rubric } }),
  { type: 'TurnStarted', data: { turnId: 't2' } },
  tool('t2', 'read_file'),
  { type: 'TurnCancelled', data: { turnId: 't2', reason: 'user', by: { type: 'api_key', id: 'k' } } },
  requested('t3', { openenv: { env: 'calc', episode_id: 'e1' } }),
  requested('t4', {}),
];

describe('scoring a turn from the log', () => {
  it("reads the rubric from the turn's context, and none when it carries none", () => {
    expect(rubricOfTurn(log, 't1')).toEqual(rubric);
    expect(rubricOfTurn(log, 't3')).toBeNull();
    expect(rubricOfTurn(log, 't4')).toBeNull();
    expect(rubricOfTurn(log, 'nope')).toBeNull();
  });

  it("builds the input of an ended turn only: its tools, the episode's tools so far, its status", () => {
    expect(rubricInputOf(log, 't1')).toEqual({
      message: 'what is 6 * 7 (t1)',
      response: 'It is 42.',
      toolCalls: ['calculator'],
      episodeToolCalls: ['calculator'],
      status: 'completed',
    });
    expect(rubricInputOf(log, 't2')).toEqual({
      message: 'what is 6 * 7 (t2)',
      response: '',
      toolCalls: ['read_file'],
      episodeToolCalls: ['calculator', 'read_file'],
      status: 'cancelled',
    });
    expect(rubricInputOf(log, 't3')).toBeNull();
  });

  it('scores with the rubric and records what it saw', () => {
    expect(rewardFor(log, 't1', rubric)?.data).toEqual({
      turnId: 't1',
      rubric: 'expected_answer',
      reward: 1,
      details: { status: 'completed', tool_calls: ['calculator'], params: rubric },
    });
    expect(rewardFor(log, 't2', rubric)?.data.reward).toBe(0);
    expect(rewardFor(log, 't3', rubric)).toBeNull();
  });

  it("records once per turn: a second recording answers with the first one's reward", async () => {
    const appended: { key: string; data: unknown }[] = [];
    const store: RewardLog = {
      append: async (_t, _s, events, opts) => {
        const first = appended.find((a) => a.key === opts.idempotencyKey);
        if (first) return { events: [{ type: 'RewardComputed', data: first.data }] };
        appended.push({ key: opts.idempotencyKey, data: events[0].data });
        return { events: events.map((e) => ({ type: e.type, data: e.data })) };
      },
    };
    const at = { tenantId: 'tn', streamId: 'session:s1', sessionId: 's1', metadata: { correlationId: 'c' } };
    expect(await recordTurnReward(store, at, log, 't1')).toBe(1);
    // The same turn under another rubric (the environment changed since): the first reward stands.
    expect(await recordTurnReward(store, at, log, 't1', { kind: 'expected_answer', expected: 'nope' })).toBe(1);
    expect(await recordTurnReward(store, at, log, 't3')).toBeNull();
    expect(await recordTurnReward(store, at, log, 't4')).toBeNull();
    expect(appended.map((a) => a.key)).toEqual(['openenv-reward:s1:t1']);
  });
});
