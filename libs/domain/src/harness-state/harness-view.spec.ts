import { z } from 'zod';
import type { HubEvent } from '../events/events';
import type { Recorded } from '../events/recorded';
import { applyOps } from './apply-ops';
import { HarnessState, initialHarnessState, type DeltaOperation } from './harness-state';
import { SCENARIOS, approvals, cancelledTurn, ev, failedTurn, interrupt, queuedSecondTurn, textAndTool } from './harness-scenarios.testing';
import { evolveHarness, foldHarness, initialHarnessView, type HarnessView } from './harness-view';

/**
 * The spec's own `HarnessState` (specs/harness-transport-protocol.md, "State"): `error?: string`,
 * never null. Our additions are optional keys it does not constrain.
 */
const SpecHarnessState = z.looseObject({
  status: z.enum(['idle', 'running', 'error']),
  messages: z.array(z.looseObject({ id: z.string(), role: z.enum(['user', 'assistant']), content: z.string() })),
  error: z.string().optional(),
});

const user = (turnId: string, content = `prompt of ${turnId}`) => ({
  id: `${turnId}:u`,
  role: 'user',
  content,
  status: 'complete',
  turnId,
});
const assistant = (turnId: string, content: string, status: string, extra: object = {}) => ({
  id: `${turnId}:m`,
  role: 'assistant',
  content,
  status,
  turnId,
  ...extra,
});

/** The ops of each event, in order, as a client receives them (through JSON). */
function opsOf(events: HubEvent[]): DeltaOperation[][] {
  const out: DeltaOperation[][] = [];
  let view = initialHarnessView();
  for (const event of events) {
    const next = evolveHarness(view, event);
    out.push(JSON.parse(JSON.stringify(next.ops)) as DeltaOperation[]);
    view = next.view;
  }
  return out;
}

function opsAfter(history: HubEvent[], event: HubEvent): DeltaOperation[] {
  return evolveHarness(foldHarness(history), event).ops;
}

describe('foldHarness: the state each scenario ends in', () => {
  it('a turn with text and a tool call', () => {
    expect(foldHarness(textAndTool).state).toEqual({
      status: 'idle',
      messages: [
        user('t1', 'Weather in NYC?'),
        assistant('t1', 'Let me check. Sunny.', 'complete', {
          toolCalls: [{ id: 'tc1', name: 'weather', status: 'complete' }],
        }),
      ],
    });
  });

  it('an approval approved and one denied', () => {
    const approval = (id: string, status: string) => ({ id, status, riskTier: 'high', reason: 'calls the network' });
    expect(foldHarness(approvals).state.messages[1]?.toolCalls).toEqual([
      { id: 'tc1', name: 'weather', status: 'complete', approval: approval('a1', 'approved') },
      { id: 'tc2', name: 'weather', status: 'error', approval: approval('a2', 'denied') },
    ]);
  });

  it('a failed turn', () => {
    expect(foldHarness(failedTurn).state).toEqual({
      status: 'error',
      error: 'provider is down',
      messages: [user('t1'), assistant('t1', 'Partial', 'error', { stopReason: 'failed' })],
    });
  });

  it('a cancelled turn', () => {
    expect(foldHarness(cancelledTurn).state).toEqual({
      status: 'idle',
      messages: [user('t1'), assistant('t1', 'Half an', 'complete', { stopReason: 'cancelled' })],
    });
  });

  it('a queued second turn appears only when it starts', () => {
    const whileQueued = foldHarness(queuedSecondTurn.slice(0, 5));
    expect(whileQueued.state.messages.map((x) => x.id)).toEqual(['t1:u', 't1:m']);
    expect(foldHarness(queuedSecondTurn).state).toEqual({
      status: 'idle',
      messages: [user('t1'), assistant('t1', 'Sunny.', 'complete'), user('t2', 'and tomorrow?'), assistant('t2', 'Rain.', 'complete')],
    });
  });

  it('an interrupt, a cancelled queued turn, a failure, and a later turn (the error cleared when it starts)', () => {
    expect(foldHarness(interrupt).state).toEqual({
      status: 'idle',
      messages: [
        user('t1'),
        assistant('t1', 'Thinking', 'complete', { stopReason: 'cancelled' }),
        user('t3', 'stop, do this instead'),
        assistant('t3', 'OK.', 'complete'),
        user('t2'),
        assistant('t2', '', 'error', { stopReason: 'failed' }),
        user('t5'),
        assistant('t5', 'Back.', 'complete'),
      ],
    });
  });
});

describe('evolveHarness: ops of single events', () => {
  const started = [ev.opened(), ev.requested('t1'), ev.started('t1'), ev.message('t1')];

  it('TurnStarted sets status running and adds the user message', () => {
    expect(opsAfter([ev.opened(), ev.requested('t1')], ev.started('t1'))).toEqual([
      { type: 'set', path: ['status'], value: 'running' },
      { type: 'set', path: ['messages', '0'], value: user('t1') },
    ]);
  });

  it('TurnStarted after a failed turn clears the error by replacing the whole state, which the spec allows (issue 27; issue 13, item 14)', () => {
    const failed = [ev.opened(), ev.requested('t1'), ev.started('t1'), ev.message('t1'), ev.failed('t1', 'down')];
    const before = foldHarness(failed).state;
    expect(before).toEqual(expect.objectContaining({ status: 'error', error: 'down' }));
    const next = [...failed, ev.requested('t2')];
    // `error?: string` in the spec: null is not a HarnessState, and no op can delete a key, so the
    // start of the next turn sets the root (path []) to the state without `error`.
    const { error: _cleared, ...rest } = before;
    expect(opsAfter(next, ev.started('t2'))).toEqual([
      { type: 'set', path: [], value: { ...rest, status: 'running' } },
      { type: 'set', path: ['messages', '2'], value: user('t2') },
    ]);
    const after = foldHarness([...next, ev.started('t2')]).state;
    expect(Object.hasOwn(after, 'error')).toBe(false);
    expect(SpecHarnessState.safeParse(after).success).toBe(true);
    expect(opsAfter([ev.opened(), ev.requested('t1')], ev.started('t1')).some((op) => op.path[0] === 'error')).toBe(false);
  });

  it('a turn that waited for a worker and failed, then a new turn: no error, the wait stays ended', () => {
    const queued: HubEvent = { type: 'TurnQueued', data: { turnId: 't1', reason: 'capacity', since: '2026-01-01T00:00:00.000Z' } };
    const events = [ev.opened(), ev.requested('t1'), ev.started('t1'), queued, ev.failed('t1', 'down'), ev.requested('t2'), ev.started('t2')];
    const state = foldHarness(events).state;
    expect(Object.hasOwn(state, 'error')).toBe(false);
    expect(state).toMatchObject({ status: 'running', queued: null });
  });

  it('a failure shows its message, but never an internal one or one naming an address (issue 11, defect 9)', () => {
    const start = [ev.opened(), ev.requested('t1'), ev.started('t1')];
    const failed = (code: string, message: string): HubEvent => ({ type: 'TurnFailed', data: { turnId: 't1', code, message, retryable: false } });
    const errorAfter = (code: string, message: string) => foldHarness([...start, failed(code, message)]).state.error;
    expect(errorAfter('PROVIDER_RATE_LIMIT', 'rate limited')).toBe('rate limited');
    expect(errorAfter('INTERNAL', 'Missing lock for job 42')).toBe('internal error');
    expect(errorAfter('PROVIDER_DOWN', 'connect ECONNREFUSED 127.0.0.1:11434')).toBe('the turn failed (PROVIDER_DOWN)');
  });

  it('the first TextDelta sets streaming, every one appends', () => {
    expect(opsAfter(started, ev.text('t1', 'Hel'))).toEqual([
      { type: 'set', path: ['messages', '1', 'status'], value: 'streaming' },
      { type: 'append-text', path: ['messages', '1', 'content'], value: 'Hel' },
    ]);
    expect(opsAfter([...started, ev.text('t1', 'Hel')], ev.text('t1', 'lo', 3))).toEqual([
      { type: 'append-text', path: ['messages', '1', 'content'], value: 'lo' },
    ]);
  });

  it('the first tool call sets the array, later ones set an index', () => {
    expect(opsAfter(started, ev.tool('t1', 'tc1'))).toEqual([
      { type: 'set', path: ['messages', '1', 'toolCalls'], value: [{ id: 'tc1', name: 'weather', status: 'running' }] },
    ]);
    expect(opsAfter([...started, ev.tool('t1', 'tc1')], ev.tool('t1', 'tc2'))).toEqual([
      { type: 'set', path: ['messages', '1', 'toolCalls', '1'], value: { id: 'tc2', name: 'weather', status: 'running' } },
    ]);
  });

  it('an approval is resolved by setting its status only', () => {
    const history = [...started, ev.tool('t1', 'tc1', 'ask'), ev.approvalRequested('t1', 'a1', 'tc1')];
    expect(opsAfter(history, ev.approvalResolved('t1', 'a1', 'tc1', 'denied'))).toEqual([
      { type: 'set', path: ['messages', '1', 'toolCalls', '0', 'approval', 'status'], value: 'denied' },
    ]);
  });

  it('events with nothing visible give no ops', () => {
    const invisible = [
      ev.opened(),
      ev.requested('t2'),
      ev.thought('t1', 'hm'),
      ev.modelCall('t1', 0),
      ev.modelDone('t1', 0, '', 'stop'),
      ev.toolUpdated('t1', 'tc1'),
      ev.message('t1'), // already there
      ev.text('t1', ''),
      ev.cancelled('t2'), // queued, never started
      ev.toolDone('t1', 'unknown'),
      ev.approvalResolved('t1', 'a9', 'tc9', 'approved'),
    ];
    for (const event of invisible) expect(opsAfter(started, event)).toEqual([]);
  });

  it('accepts a recorded event, envelope and all', () => {
    const recorded: Recorded = {
      ...ev.started('t1'),
      eventId: 'e1',
      tenantId: 'tn',
      streamId: 'session-s-1',
      streamPosition: 3,
      globalPosition: 42,
      createdAt: '2025-01-01T00:00:00.000Z',
      metadata: { correlationId: 'c' },
    };
    expect(opsAfter([ev.opened(), ev.requested('t1')], recorded)).toHaveLength(2);
  });
});

describe.each(Object.entries(SCENARIOS))('scenario %s', (_name, events) => {
  it('applying every op in order reproduces the folded state, at every step', () => {
    let client = initialHarnessState();
    let view: HarnessView = initialHarnessView();
    opsOf(events).forEach((ops, i) => {
      client = applyOps(client, ops);
      view = evolveHarness(view, events[i] as HubEvent).view;
      expect(JSON.stringify(client)).toBe(JSON.stringify(view.state));
      // Every intermediate state a client holds is a valid spec-shaped HarnessState.
      expect(HarnessState.safeParse(client).success).toBe(true);
      expect(SpecHarnessState.safeParse(client).success).toBe(true);
    });
    expect(JSON.stringify(client)).toBe(JSON.stringify(foldHarness(events).state));
  });

  it('replays byte for byte', () => {
    expect(JSON.stringify(foldHarness(events))).toBe(JSON.stringify(foldHarness([...events])));
    expect(JSON.stringify(opsOf(events))).toBe(JSON.stringify(opsOf(events.map((e) => structuredClone(e)))));
  });

  it('does not mutate the view it is given', () => {
    const before = foldHarness(events.slice(0, -1));
    const frozen = JSON.stringify(before);
    evolveHarness(before, events[events.length - 1] as HubEvent);
    expect(JSON.stringify(before)).toBe(frozen);
  });
});
