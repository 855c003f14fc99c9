import type {
  ApprovalRequested,
  HubEvent,
  ModelCallCompleted,
  RequestedToolCall,
  ToolCallCompleted,
  ToolCallStarted,
  TurnRequested,
  Usage,
} from '../events/events';
import { assertNever } from '../errors';

/**
 * How far one turn got, folded from its session's events. The turn runner asks
 * `planNextStep` what to do next; everything already recorded (model outputs, tool results)
 * is read from here and never produced again.
 */
export interface ModelCallProgress {
  callId: string;
  step: number;
  /** Answer text recorded so far for this call (joined TextDeltas). */
  text: string;
  thought: string;
  completed: ModelCallCompleted['data'] | null;
}

export interface ToolProgress {
  call: RequestedToolCall;
  step: number;
  started: ToolCallStarted['data'] | null;
  /** `input`: the approver's edit of the call's arguments, when they made one. */
  approval:
    | (Pick<ApprovalRequested['data'], 'approvalId' | 'deadlineAt'> & {
        status: 'pending' | 'approved' | 'denied';
        reason: string | null;
        input?: Record<string, unknown>;
      })
    | null;
  completed: ToolCallCompleted['data'] | null;
}

/** `delivered`: a queued steer turn whose message went into another, running turn; it never runs itself. */
export type TurnStatus = 'unknown' | 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'delivered';

/** Live input that entered this turn at a step boundary, before model call `beforeStep`. */
export interface DeliveredInput {
  kind: 'user' | 'reminder';
  /** The user message id (`user`) or the reminder id. */
  id: string;
  /** The message text; empty for a reminder (its body is on its `ReminderQueued`). */
  text: string;
  beforeStep: number;
}

export interface TurnProgress {
  turnId: string;
  status: TurnStatus;
  request: TurnRequested['data'] | null;
  messageId: string;
  messageStarted: boolean;
  messageCompleted: boolean;
  calls: ModelCallProgress[];
  tools: ToolProgress[];
  /** Steered messages and rendered reminders, in delivery order. */
  delivered: DeliveredInput[];
  usage: Usage;
}

export const assistantMessageId = (turnId: string) => `${turnId}:m`;
export const modelCallId = (turnId: string, step: number) => `${turnId}:c${step}`;
/** Tool call ids are ours (not the provider's) and safe for every provider's id alphabet. */
export const toolCallIdFor = (turnId: string, step: number, index: number) => `call_${turnId.replace(/[^A-Za-z0-9_-]/g, '_')}_s${step}_${index}`;

export function initialTurnProgress(turnId: string): TurnProgress {
  return {
    turnId,
    status: 'unknown',
    request: null,
    messageId: assistantMessageId(turnId),
    messageStarted: false,
    messageCompleted: false,
    calls: [],
    tools: [],
    delivered: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

const turnIdOf = (e: HubEvent): string | null => ('turnId' in e.data ? (e.data as { turnId: string }).turnId : null);

/** Whether `e` moves turn `turnId` on: one of its own events, or its queued message steered into another turn. */
export function concernsTurn(e: HubEvent, turnId: string): boolean {
  return turnIdOf(e) === turnId || (e.type === 'UserMessageInjected' && e.data.fromTurnId === turnId);
}

export function foldTurn(events: readonly HubEvent[], turnId: string): TurnProgress {
  let p = initialTurnProgress(turnId);
  for (const e of events) if (concernsTurn(e, turnId)) p = evolveTurn(p, e);
  return p;
}

function updateTool(p: TurnProgress, toolCallId: string, f: (t: ToolProgress) => ToolProgress): TurnProgress {
  return { ...p, tools: p.tools.map((t) => (t.call.toolCallId === toolCallId ? f(t) : t)) };
}

function updateCall(p: TurnProgress, callId: string, f: (c: ModelCallProgress) => ModelCallProgress): TurnProgress {
  return { ...p, calls: p.calls.map((c) => (c.callId === callId ? f(c) : c)) };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export function evolveTurn(p: TurnProgress, e: HubEvent): TurnProgress {
  switch (e.type) {
    case 'TurnRequested':
      return { ...p, status: 'queued', request: e.data };
    case 'TurnStarted':
      return { ...p, status: 'running' };
    case 'MessageStarted':
      return { ...p, messageStarted: true };
    case 'ModelCallStarted':
      return p.calls.some((c) => c.callId === e.data.callId)
        ? p
        : { ...p, calls: [...p.calls, { callId: e.data.callId, step: e.data.step, text: '', thought: '', completed: null }] };
    case 'TextDelta':
      return updateCall(p, e.data.callId, (c) => ({ ...c, text: c.text + e.data.text }));
    case 'ThoughtDelta':
      return updateCall(p, e.data.callId, (c) => ({ ...c, thought: c.thought + e.data.text }));
    case 'ModelCallCompleted': {
      const tools = e.data.toolCalls.map((call) => ({ call, step: e.data.step, started: null, approval: null, completed: null }));
      const next = updateCall(p, e.data.callId, (c) => ({ ...c, completed: e.data }));
      return { ...next, tools: [...next.tools, ...tools], usage: addUsage(p.usage, e.data.usage) };
    }
    case 'ToolCallStarted':
      return updateTool(p, e.data.toolCallId, (t) => ({ ...t, started: e.data }));
    case 'ApprovalRequested':
      return updateTool(p, e.data.toolCallId, (t) => ({
        ...t,
        approval: { approvalId: e.data.approvalId, deadlineAt: e.data.deadlineAt, status: 'pending', reason: null },
      }));
    case 'ApprovalResolved':
      return updateTool(p, e.data.toolCallId, (t) =>
        t.approval
          ? {
              ...t,
              approval: { ...t.approval, status: e.data.decision, reason: e.data.reason, ...(e.data.input === undefined ? {} : { input: e.data.input }) },
            }
          : t,
      );
    case 'ToolCallCompleted':
      return updateTool(p, e.data.toolCallId, (t) => ({ ...t, completed: e.data }));
    case 'MessageCompleted':
      return { ...p, messageCompleted: true };
    case 'TurnCompleted':
      return { ...p, status: 'completed' };
    case 'TurnFailed':
      return { ...p, status: 'failed' };
    case 'TurnCancelled':
      return { ...p, status: 'cancelled' };
    case 'UserMessageInjected':
      if (e.data.fromTurnId === p.turnId) return { ...p, status: 'delivered' };
      if (e.data.turnId !== p.turnId || p.delivered.some((d) => d.kind === 'user' && d.id === e.data.messageId)) return p;
      return { ...p, delivered: [...p.delivered, { kind: 'user', id: e.data.messageId, text: e.data.text, beforeStep: e.data.beforeStep }] };
    case 'ReminderEmitted':
      // An audit_only reminder (no step) is recorded, never rendered.
      if (e.data.beforeStep === null || p.delivered.some((d) => d.kind === 'reminder' && d.id === e.data.reminderId)) return p;
      return { ...p, delivered: [...p.delivered, { kind: 'reminder', id: e.data.reminderId, text: '', beforeStep: e.data.beforeStep }] };
    // Nothing the runner plans from; a started turn's wait for a worker (TurnQueued) and one
    // approval of several (the call waits for the ApprovalResolved that reaches the quorum) included.
    case 'ApprovalVoted':
    case 'SessionOpened':
    case 'ToolCallUpdated':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'SessionForked':
    case 'SessionRedriven':
    case 'TurnQueued':
      return p;
    default:
      return assertNever(e, 'event');
  }
}
