import { assertNever } from '../errors';
import type { HubEvent } from '../events/events';
import { applyOps } from './apply-ops';
import { initialHarnessState, type DeltaOperation, type HarnessState, type JSONValue } from './harness-state';
import * as step from './harness-steps';
import type { HarnessStep, HarnessView } from './harness-view-types';

export type { HarnessStep, HarnessView, RequestedPrompt } from './harness-view-types';

/** The view of a session with no events. */
export function initialHarnessView(): HarnessView {
  return { state: initialHarnessState(), activeTurnId: null, requested: {}, messageIndex: {}, toolCallIndex: {}, turnMessage: {} };
}

/**
 * Applies one event (a `Recorded<HubEvent>` works too) and returns the new view and the ops
 * that take a client from the old state to the new one. The state is derived by applying
 * exactly those ops, so what a client rebuilds from the deltas cannot drift from the
 * snapshot. Ops that would change nothing are dropped; an event with no visible effect
 * gives `[]`.
 */
export function evolveHarness(view: HarnessView, event: HubEvent): { view: HarnessView; ops: DeltaOperation[] } {
  const { ops, book } = stepFor(view, event);
  const settled = settle(view.state, [...step.queuedPhaseEnded(view, event), ...ops]);
  return { view: { ...view, ...book, state: settled.state }, ops: settled.ops };
}

/** Folds events, oldest first, into the view; replaying the same events gives the same view. */
export function foldHarness(events: Iterable<HubEvent>): HarnessView {
  let view = initialHarnessView();
  for (const event of events) view = evolveHarness(view, event).view;
  return view;
}

// Total over the event union: a new event type does not compile until the transport has
// decided how it shows in the harness state.
function stepFor(view: HarnessView, event: HubEvent): HarnessStep {
  switch (event.type) {
    case 'TurnRequested':
      return step.turnRequested(view, event.data);
    case 'TurnStarted':
      return step.turnStarted(view, event.data.turnId);
    case 'MessageStarted':
      return step.messageStarted(view, event.data);
    case 'TextDelta':
      return step.textDelta(view, event.data);
    case 'ToolCallStarted':
      return step.toolCallStarted(view, event.data);
    case 'ApprovalRequested':
      return step.approvalRequested(view, event.data);
    case 'ApprovalResolved':
      return step.approvalResolved(view, event.data);
    case 'ToolCallCompleted':
      return step.toolCallCompleted(view, event.data);
    case 'MessageCompleted':
      return step.messageCompleted(view, event.data.messageId);
    case 'TurnCompleted':
      return step.turnEnded(view, event.data.turnId, []);
    case 'TurnFailed':
      return step.turnFailed(view, event.data);
    case 'TurnCancelled':
      return step.turnCancelled(view, event.data.turnId);
    case 'UserMessageInjected':
      return step.userMessageInjected(view, event.data);
    case 'TurnQueued':
      return step.turnQueued(view, event.data);
    // Not part of this wire state: thoughts, model calls, tool progress, the session itself,
    // OpenEnv episode facts (rewards, resets: scored outside the conversation), and reminders
    // (ambient context for the model, not conversation messages), and one approval of several
    // (the call still waits; ADR 0048).
    case 'ApprovalVoted':
    case 'SessionOpened':
    case 'ModelCallStarted':
    case 'ThoughtDelta':
    case 'ModelCallCompleted':
    case 'ToolCallUpdated':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'ReminderEmitted':
    case 'SessionForked':
    case 'SessionRedriven':
      return { ops: [] };
    default:
      return assertNever(event, 'HubEvent');
  }
}

/** Applies the ops one by one, dropping those that would leave the state as it is. */
function settle(state: HarnessState, ops: readonly DeltaOperation[]): { state: HarnessState; ops: DeltaOperation[] } {
  const kept: DeltaOperation[] = [];
  let next = state;
  for (const op of ops) {
    if (isNoop(next, op)) continue;
    next = applyOps(next, [op]);
    kept.push(op);
  }
  return { state: next, ops: kept };
}

function isNoop(state: HarnessState, op: DeltaOperation): boolean {
  if (op.type === 'append-text') return op.value === '';
  const current = valueAt(state, op.path);
  return current !== undefined && JSON.stringify(current) === JSON.stringify(op.value);
}

function valueAt(root: JSONValue, path: readonly string[]): JSONValue | undefined {
  let node: JSONValue | undefined = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, JSONValue>)[key];
  }
  return node;
}
