import type { EventOf, HubEvent } from '../events/events';
import { endsQueuedPhase } from '../events/queue-events';
import { concernsTurn } from '../turn/turn-progress';
import { publicFailureMessage } from '../turn/public-failure';
import { applyOps } from './apply-ops';
import type { DeltaOperation, HarnessMessage, HarnessToolCall, JSONValue } from './harness-state';
import type { HarnessStep, HarnessView } from './harness-view-types';

// One function per visible event: read the view, return the ops and the bookkeeping change.
// Ops only ever `set` leaves or whole new entries, so each op is small and replayable.

const NOTHING: HarnessStep = { ops: [] };

const set = (path: string[], value: JSONValue): DeltaOperation => ({ type: 'set', path, value });
const messagePath = (index: number, ...rest: string[]) => ['messages', String(index), ...rest];
const toolCallPath = ([m, t]: readonly [number, number], ...rest: string[]) => messagePath(m, 'toolCalls', String(t), ...rest);

function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
function withKey<T>(record: Readonly<Record<string, T>>, key: string, value: T): Record<string, T> {
  return { ...record, [key]: value };
}
function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  if (!Object.hasOwn(record, key)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

/** Adds `message` at the end of the state's messages: the op, and its index recorded by id. */
function appendMessage(view: HarnessView, message: HarnessMessage): { op: DeltaOperation; index: number; messageIndex: Record<string, number> } {
  const index = view.state.messages.length;
  return { op: set(messagePath(index), message), index, messageIndex: withKey(view.messageIndex, message.id, index) };
}

export function turnRequested(view: HarnessView, data: EventOf<'TurnRequested'>['data']): HarnessStep {
  const prompt = { userMessageId: data.userMessageId, prompt: data.prompt };
  return { ops: [], book: { requested: withKey(view.requested, data.turnId, prompt) } };
}

export function turnStarted(view: HarnessView, turnId: string): HarnessStep {
  const ops = [...startOps(view, turnId)];
  const book = { activeTurnId: turnId, requested: withoutKey(view.requested, turnId) };
  const request = own(view.requested, turnId);
  if (!request || own(view.messageIndex, request.userMessageId) !== undefined) return { ops, book };
  const added = appendMessage(view, { id: request.userMessageId, role: 'user', content: request.prompt, status: 'complete', turnId });
  return { ops: [...ops, added.op], book: { ...book, messageIndex: added.messageIndex } };
}

/**
 * `status: running`; after a failed turn, also no `error` any more. The spec types `error` as an
 * optional string (null is not a HarnessState) and no op deletes a key, so a failed session's
 * next turn sets the root (path `[]`, "replace the value at path") to the state without `error`:
 * one whole-state op per recovery, and a snapshot agrees with the deltas. A session that never
 * failed gets no `error` key at all.
 */
function startOps(view: HarnessView, turnId: string): DeltaOperation[] {
  if (!Object.hasOwn(view.state, 'error')) return [set(['status'], 'running')];
  // The root op follows the wait's end (evolveHarness applies that first), so it must carry it too.
  const { error: _cleared, ...rest } = applyOps(view.state, queuedPhaseEnded(view, { type: 'TurnStarted', data: { turnId } }));
  return [set([], { ...rest, status: 'running' })];
}

/** A steered message joins the running turn: it shows as a user message from now on (its queued turn never starts). */
export function userMessageInjected(view: HarnessView, data: EventOf<'UserMessageInjected'>['data']): HarnessStep {
  const book = { requested: withoutKey(view.requested, data.fromTurnId) };
  if (own(view.messageIndex, data.messageId) !== undefined) return { ops: [], book };
  const added = appendMessage(view, { id: data.messageId, role: 'user', content: data.text, status: 'complete', turnId: data.turnId });
  return { ops: [added.op], book: { ...book, messageIndex: added.messageIndex } };
}

export function messageStarted(view: HarnessView, data: EventOf<'MessageStarted'>['data']): HarnessStep {
  if (own(view.messageIndex, data.messageId) !== undefined) return NOTHING;
  const added = appendMessage(view, { id: data.messageId, role: 'assistant', content: '', status: 'pending', turnId: data.turnId });
  return { ops: [added.op], book: { messageIndex: added.messageIndex, turnMessage: withKey(view.turnMessage, data.turnId, added.index) } };
}

export function textDelta(view: HarnessView, data: EventOf<'TextDelta'>['data']): HarnessStep {
  const index = own(view.messageIndex, data.messageId);
  const message = index === undefined ? undefined : view.state.messages[index];
  // An empty chunk is no output: it must not flip the message to streaming.
  if (index === undefined || !message || data.text === '') return NOTHING;
  const ops: DeltaOperation[] = [];
  if (message.status === 'pending') ops.push(set(messagePath(index, 'status'), 'streaming'));
  ops.push({ type: 'append-text', path: messagePath(index, 'content'), value: data.text });
  return { ops };
}

export function toolCallStarted(view: HarnessView, data: EventOf<'ToolCallStarted'>['data']): HarnessStep {
  const index = own(view.messageIndex, data.messageId);
  const message = index === undefined ? undefined : view.state.messages[index];
  if (index === undefined || !message || own(view.toolCallIndex, data.toolCallId)) return NOTHING;
  const toolCall: HarnessToolCall = { id: data.toolCallId, name: data.name, status: 'running' };
  const position = message.toolCalls?.length ?? 0;
  const op = position === 0 ? set(messagePath(index, 'toolCalls'), [toolCall]) : set(messagePath(index, 'toolCalls', String(position)), toolCall);
  return { ops: [op], book: { toolCallIndex: withKey(view.toolCallIndex, data.toolCallId, [index, position]) } };
}

export function approvalRequested(view: HarnessView, data: EventOf<'ApprovalRequested'>['data']): HarnessStep {
  const at = own(view.toolCallIndex, data.toolCallId);
  if (!at) return NOTHING;
  const approval = { id: data.approvalId, status: 'pending', riskTier: data.riskTier, reason: data.reason };
  return { ops: [set(toolCallPath(at, 'approval'), approval)] };
}

export function approvalResolved(view: HarnessView, data: EventOf<'ApprovalResolved'>['data']): HarnessStep {
  const at = own(view.toolCallIndex, data.toolCallId);
  const toolCall = at ? view.state.messages[at[0]]?.toolCalls?.[at[1]] : undefined;
  // Without the request we know neither risk nor reason; a partial approval would mislead.
  if (!at || !toolCall?.approval) return NOTHING;
  return { ops: [set(toolCallPath(at, 'approval', 'status'), data.decision)] };
}

export function toolCallCompleted(view: HarnessView, data: EventOf<'ToolCallCompleted'>['data']): HarnessStep {
  const at = own(view.toolCallIndex, data.toolCallId);
  if (!at) return NOTHING;
  return { ops: [set(toolCallPath(at, 'status'), data.status === 'complete' ? 'complete' : 'error')] };
}

export function messageCompleted(view: HarnessView, messageId: string): HarnessStep {
  const index = own(view.messageIndex, messageId);
  if (index === undefined) return NOTHING;
  return { ops: [set(messagePath(index, 'status'), 'complete')] };
}

/**
 * Ends a turn: `finalOps` then, if it was the active turn, the overall status. A turn that
 * ends before it started (a cancelled queued turn) only forgets its prompt.
 */
export function turnEnded(view: HarnessView, turnId: string, finalOps: DeltaOperation[], status: 'idle' | 'error' = 'idle'): HarnessStep {
  const book = { requested: withoutKey(view.requested, turnId), turnMessage: withoutKey(view.turnMessage, turnId) };
  if (view.activeTurnId !== turnId) return { ops: [], book };
  return { ops: [...finalOps, set(['status'], status)], book: { ...book, activeTurnId: null } };
}

export function turnFailed(view: HarnessView, data: EventOf<'TurnFailed'>['data']): HarnessStep {
  const index = own(view.turnMessage, data.turnId);
  const messageOps = index === undefined ? [] : [set(messagePath(index, 'status'), 'error'), set(messagePath(index, 'stopReason'), 'failed')];
  return turnEnded(view, data.turnId, [...messageOps, set(['error'], publicFailureMessage(data.code, data.message))], 'error');
}

export function turnCancelled(view: HarnessView, turnId: string): HarnessStep {
  const index = own(view.turnMessage, turnId);
  const messageOps = index === undefined ? [] : [set(messagePath(index, 'status'), 'complete'), set(messagePath(index, 'stopReason'), 'cancelled')];
  return turnEnded(view, turnId, messageOps);
}

/** The running turn waits for a worker: shown until its next event (see {@link queuedPhaseEnded}). A stale one (of a turn not running) shows nothing. */
export function turnQueued(view: HarnessView, data: EventOf<'TurnQueued'>['data']): HarnessStep {
  if (view.activeTurnId !== data.turnId) return NOTHING;
  return { ops: [set(['queued'], { turnId: data.turnId, reason: data.reason, since: data.since })] };
}

/**
 * The op that ends a shown wait, when `event` is the waiting turn's first event from a worker or
 * its end; else none. Null, not a removed key: ops cannot delete one, and a snapshot must agree
 * with the deltas that led to it.
 */
export function queuedPhaseEnded(view: HarnessView, event: HubEvent): DeltaOperation[] {
  const queued = view.state.queued;
  return queued && concernsTurn(event, queued.turnId) && endsQueuedPhase(event) ? [set(['queued'], null)] : [];
}
