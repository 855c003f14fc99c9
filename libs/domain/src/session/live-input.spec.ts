import { foldHarness } from '../harness-state';
import type { HubEvent } from '../events/events';
import { foldTurn } from '../turn/turn-progress';
import { planNextStep } from '../turn/plan';
import { foldSession, pendingReminders, pendingSteers } from './session-state';

// Given events / then state: a steered message leaves the queue as delivered, reminders dedupe,
// and the plan delivers live input only before a model call that has not started.

const req = (turnId: string, context: Record<string, unknown> = {}): HubEvent => ({
  type: 'TurnRequested',
  data: { turnId, userMessageId: `${turnId}:u`, prompt: `p ${turnId}`, context, busyPolicy: 'enqueue' },
});
const reminder = (reminderId: string, dedupeKey: string | null): HubEvent => ({
  type: 'ReminderQueued',
  data: {
    reminderId,
    body: reminderId,
    tags: [],
    dedupeKey,
    ttlTurns: null,
    roleHint: 'system',
    mode: 'finish_step',
    propagate: null,
    preserveOnCompact: false,
    source: 'host',
    meta: {},
  },
});
const base: HubEvent[] = [
  { type: 'SessionOpened', data: { sessionId: 's', openedVia: 'acp' } },
  req('t1'),
  { type: 'TurnStarted', data: { turnId: 't1' } },
  { type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' } },
  req('steer', { delivery: 'steer' }),
  req('later'),
  reminder('a', 'k'),
  reminder('b', 'k'),
];

describe('live input in the session state', () => {
  it('lists pending steers (not queue-mode turns) and the newest reminder per dedupe key', () => {
    const s = foldSession(base);
    expect(pendingSteers(s).map((q) => q.turnId)).toEqual(['steer']);
    expect(pendingReminders(s).map((r) => r.reminderId)).toEqual(['b']);
    expect(planNextStep(foldTurn(base, 't1'), { maxSteps: 8, live: { steers: pendingSteers(s), reminders: pendingReminders(s) } })).toEqual(
      expect.objectContaining({ kind: 'deliver-input', step: 0 }),
    );
  });

  it('a delivered steer leaves the queue, counts as delivered and shows as a user message of the running turn', () => {
    const events: HubEvent[] = [
      ...base,
      { type: 'UserMessageInjected', data: { turnId: 't1', fromTurnId: 'steer', messageId: 'steer:u', text: 'p steer', beforeStep: 0 } },
      { type: 'ReminderEmitted', data: { turnId: 't1', reminderId: 'b', beforeStep: 0, renderedRole: 'system' } },
    ];
    const s = foldSession(events);
    expect(s.status === 'active' && [s.queue.map((q) => q.turnId), s.finishedTurns.get('steer')]).toEqual([['later'], 'delivered']);
    expect(pendingReminders(s)).toEqual([]);
    expect(foldTurn(events, 'steer').status).toBe('delivered');
    expect(foldTurn(events, 't1').delivered).toEqual([
      { kind: 'user', id: 'steer:u', text: 'p steer', beforeStep: 0 },
      { kind: 'reminder', id: 'b', text: '', beforeStep: 0 },
    ]);
    expect(planNextStep(foldTurn(events, 't1'), { maxSteps: 8, live: { steers: pendingSteers(s), reminders: pendingReminders(s) } })).toEqual(
      expect.objectContaining({ kind: 'call-model', step: 0 }),
    );
    const messages = foldHarness(events).state.messages;
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'p t1'],
      ['assistant', ''],
      ['user', 'p steer'],
    ]);
  });
});
