import type { HubEvent } from '../events/events';
import { applyOps } from './apply-ops';
import { HarnessState, initialHarnessState, type DeltaOperation } from './harness-state';
import { ev } from './harness-scenarios.testing';
import { evolveHarness, foldHarness, initialHarnessView } from './harness-view';

// The transport's `queued` addition (ADR 0033): a started turn that waits for a worker.

const since = '2026-11-26T10:00:00.000Z';
const queued = (turnId: string): HubEvent => ({ type: 'TurnQueued', data: { turnId, reason: 'capacity', since } });

/** The ops of every event, in order. */
function opsOf(events: HubEvent[]): DeltaOperation[][] {
  let view = initialHarnessView();
  return events.map((event) => {
    const next = evolveHarness(view, event);
    view = next.view;
    return next.ops;
  });
}

const waiting = [ev.opened(), ev.requested('t1'), ev.started('t1'), queued('t1')];

describe('harness state: a turn waiting for a worker', () => {
  it('shows the wait on the running state', () => {
    const { state } = foldHarness(waiting);
    expect(state.status).toBe('running');
    expect(state.queued).toEqual({ turnId: 't1', reason: 'capacity', since });
    expect(HarnessState.parse(state)).toEqual(state);
    expect(opsOf(waiting).at(-1)).toEqual([{ type: 'set', path: ['queued'], value: { turnId: 't1', reason: 'capacity', since } }]);
  });

  it("ends the wait with the turn's first event from a worker, before that event's own ops", () => {
    const ops = opsOf([...waiting, ev.message('t1')]).at(-1);
    expect(ops?.[0]).toEqual({ type: 'set', path: ['queued'], value: null });
    expect(ops?.[1]).toMatchObject({ type: 'set', path: ['messages', '1'] });
  });

  it('ends the wait when the turn ends without a worker (cancelled while queued)', () => {
    expect(foldHarness([...waiting, ev.cancelled('t1')]).state).toMatchObject({ status: 'idle', queued: null });
  });

  it('a second TurnQueued of the waiting turn (a repeated submit scheduled it again) changes nothing', () => {
    expect(opsOf([...waiting, queued('t1')]).at(-1)).toEqual([]);
  });

  it('shows nothing for a turn that is not running (late or stale)', () => {
    const ended = [ev.opened(), ev.requested('t1'), ev.started('t1'), ev.message('t1'), ev.completed('t1', 'done')];
    expect(opsOf([...ended, queued('t1')]).at(-1)).toEqual([]);
    expect(foldHarness([...ended, queued('t1')]).state).not.toHaveProperty('queued');
  });

  it('a client applying the deltas ends where the snapshot is, through a wait and a run', () => {
    const events = [
      ...waiting,
      ev.message('t1'),
      ev.modelCall('t1', 0),
      ev.text('t1', 'Hi'),
      ev.modelDone('t1', 0, 'Hi', 'stop'),
      ev.messageDone('t1'),
      ev.completed('t1', 'Hi'),
    ];
    const rebuilt = opsOf(events).reduce((s, ops) => applyOps(s, JSON.parse(JSON.stringify(ops)) as DeltaOperation[]), initialHarnessState());
    expect(rebuilt).toEqual(foldHarness(events).state);
    expect(rebuilt.queued).toBeNull();
  });
});
