import { evolveHarness, initialHarnessView, type EventOf, type HarnessView, type HubEvent, type RiskTier } from '@hub/domain';

/** A tool call as AG-UI shows it: its arguments as JSON text, its result once it has one. */
export interface ToolCallRecord {
  readonly name: string;
  readonly args: string;
  readonly messageId: string;
  readonly result?: string;
}

/** A pending approval, as the interrupt that asks for it. */
export interface PendingApproval {
  readonly turnId: string;
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly reason: string;
  readonly riskTier: RiskTier;
  readonly deadlineAt: string | null;
}

/** How a turn ended, as the run that follows it ends. */
export type TurnEnd =
  | { readonly kind: 'completed'; readonly text: string }
  | { readonly kind: 'failed'; readonly code: string; readonly message: string; readonly retryable: boolean }
  | { readonly kind: 'cancelled'; readonly reason: string };

/**
 * A session as AG-UI needs it: the HarnessState projection (STATE_SNAPSHOT / STATE_DELTA), the
 * tool calls' arguments and results (MESSAGES_SNAPSHOT), pending approvals (interrupts), how
 * turns ended, the AG-UI message id each AG-UI turn was submitted for, and the text messages
 * this stream has opened and not ended. Plain JSON records, like `HarnessView`.
 */
export interface AgUiView {
  readonly harness: HarnessView;
  readonly toolCalls: Readonly<Record<string, ToolCallRecord>>;
  readonly pending: Readonly<Record<string, PendingApproval>>;
  readonly ended: Readonly<Record<string, TurnEnd>>;
  /** AG-UI user message id → the turn submitted for it (from `TurnRequested.context`). */
  readonly submitted: Readonly<Record<string, string>>;
  /** Text messages this stream sent TEXT_MESSAGE_START for and no TEXT_MESSAGE_END yet. */
  readonly open: readonly string[];
}

/** Where a turn submitted over AG-UI keeps the AG-UI message id it answers (in its context). */
export const CONTEXT_KEY = 'agUi';

export function initialAgUiView(): AgUiView {
  return { harness: initialHarnessView(), toolCalls: {}, pending: {}, ended: {}, submitted: {}, open: [] };
}

/** The session facts one event changes (everything but `open`, which is the stream's own). */
export function evolveFacts(view: AgUiView, event: HubEvent): AgUiView {
  const harness = evolveHarness(view.harness, event).view;
  return { ...view, ...factsOf(view, event), harness };
}

/** Folds a session's history (oldest first) into a view; no stream is open yet. */
export function foldAgUi(events: Iterable<HubEvent>): AgUiView {
  let view = initialAgUiView();
  for (const event of events) view = evolveFacts(view, event);
  return view;
}

/** What one event changes of the view besides the harness projection and `open`. */
export function factsOf(view: AgUiView, event: HubEvent): Partial<AgUiView> {
  switch (event.type) {
    case 'TurnRequested':
      return submittedFor(view, event.data);
    case 'ToolCallStarted': {
      const { toolCallId, name, input, messageId } = event.data;
      return { toolCalls: { ...view.toolCalls, [toolCallId]: { name, args: JSON.stringify(input ?? {}), messageId } } };
    }
    case 'ToolCallCompleted': {
      const call = view.toolCalls[event.data.toolCallId];
      return call ? { toolCalls: { ...view.toolCalls, [event.data.toolCallId]: { ...call, result: event.data.output } } } : {};
    }
    case 'ApprovalRequested': {
      const { turnId, approvalId, toolCallId, toolName, reason, riskTier, deadlineAt } = event.data;
      return { pending: { ...view.pending, [approvalId]: { turnId, approvalId, toolCallId, toolName, reason, riskTier, deadlineAt } } };
    }
    case 'ApprovalResolved':
      return { pending: without(view.pending, event.data.approvalId) };
    case 'TurnCompleted':
      return ended(view, event.data.turnId, { kind: 'completed', text: event.data.text });
    case 'TurnFailed': {
      const { code, message, retryable } = event.data;
      return ended(view, event.data.turnId, { kind: 'failed', code, message, retryable });
    }
    case 'TurnCancelled':
      return ended(view, event.data.turnId, { kind: 'cancelled', reason: event.data.reason });
    default:
      return {};
  }
}

function submittedFor(view: AgUiView, data: EventOf<'TurnRequested'>['data']): Partial<AgUiView> {
  const mine = data.context[CONTEXT_KEY];
  const messageId = typeof mine === 'object' && mine !== null ? (mine as Record<string, unknown>)['messageId'] : undefined;
  return typeof messageId === 'string' ? { submitted: { ...view.submitted, [messageId]: data.turnId } } : {};
}

function ended(view: AgUiView, turnId: string, end: TurnEnd): Partial<AgUiView> {
  // A turn that ends drops its approvals: nobody can answer them any more.
  const pending = Object.fromEntries(Object.entries(view.pending).filter(([, p]) => p.turnId !== turnId));
  return { ended: { ...view.ended, [turnId]: end }, pending };
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}
