import { assertNever, publicFailureMessage, type ApprovalRequested, type HubEvent, type Recorded } from '@hub/domain';
import { taskIdOf, type TaskRef } from './ids';
import {
  HUB_METADATA_KEY,
  TERMINAL_STATES,
  type StreamResponse,
  type TaskState,
  type WireArtifact,
  type WireMessage,
  type WirePart,
  type WireStatus,
  type WireTask,
} from './schema';

/** The one artifact of a task: the turn's answer, streamed as appended text chunks. */
export const ANSWER_ARTIFACT_ID = 'answer';

/**
 * A task as far as its events have been encoded: what `GetTask` answers and what a stream
 * resumes from. Folded from the log by the same `encode` that writes the stream, so a snapshot
 * and the updates after it can never disagree.
 */
export interface TaskView {
  ref: TaskRef;
  taskId: string;
  /** Null until the turn's `TurnRequested`: no such task (yet). */
  status: WireStatus | null;
  userMessage: WireMessage | null;
  /** The answer so far: every text delta of the turn, in order. */
  answer: string;
  /** Whether an answer chunk went out (later chunks append to it). */
  answerStarted: boolean;
  /** Approvals asked and not yet answered, in the order asked. */
  pending: ApprovalRequested['data'][];
  /** The highest global position folded in (any event of the session). */
  cursor: number;
}

export function initialTaskView(ref: TaskRef): TaskView {
  return { ref, taskId: taskIdOf(ref), status: null, userMessage: null, answer: '', answerStarted: false, pending: [], cursor: 0 };
}

export interface Encoded {
  frames: StreamResponse[];
  view: TaskView;
}

/**
 * The stream updates one recorded event makes of the task `view` follows, and the view after it.
 * Total over the event union: an event of another turn, or one A2A has no place for, makes none.
 */
export function encode(event: Recorded<HubEvent>, view: TaskView): Encoded {
  const next: TaskView = { ...view, cursor: Math.max(view.cursor, event.globalPosition) };
  if (!('turnId' in event.data) || event.data.turnId !== view.ref.turnId) return { frames: [], view: next };
  const at = { cursor: event.globalPosition, time: event.createdAt };
  const e = event as HubEvent;
  switch (e.type) {
    case 'TurnRequested': {
      const userMessage = message(next, `${e.data.userMessageId}`, 'ROLE_USER', [{ text: e.data.prompt }], messageIdOf(e.data.context));
      return status({ ...next, userMessage }, 'TASK_STATE_SUBMITTED', at);
    }
    case 'TurnQueued':
      return status(next, 'TASK_STATE_SUBMITTED', at, [{ text: 'Waiting for a worker to take the task.' }]);
    case 'TurnStarted':
      return status(next, 'TASK_STATE_WORKING', at);
    case 'TextDelta':
      return e.data.text === '' ? { frames: [], view: next } : chunk({ ...next, answer: next.answer + e.data.text }, e.data.text, at.cursor);
    case 'ToolCallStarted':
      return status(next, 'TASK_STATE_WORKING', at, [
        toolPart({ toolCallId: e.data.toolCallId, name: e.data.name, input: e.data.input, status: 'started', executor: e.data.executor }),
      ]);
    case 'ToolCallUpdated':
      return status(next, 'TASK_STATE_WORKING', at, [toolPart({ toolCallId: e.data.toolCallId, status: 'running', message: e.data.message })]);
    case 'ToolCallCompleted':
      return status(next, 'TASK_STATE_WORKING', at, [toolPart({ toolCallId: e.data.toolCallId, status: e.data.status, output: e.data.output })]);
    case 'ApprovalRequested':
      return asking({ ...next, pending: [...next.pending, e.data] }, at);
    case 'ApprovalResolved': {
      const after = { ...next, pending: next.pending.filter((a) => a.approvalId !== e.data.approvalId) };
      if (after.pending.length > 0) return asking(after, at);
      const who = e.data.by.name ?? e.data.by.id;
      return status(after, 'TASK_STATE_WORKING', at, [
        { text: `${e.data.decision === 'approved' ? 'Approved' : 'Denied'} by ${who} (${e.data.via}).` },
        { data: { approvalId: e.data.approvalId, decision: e.data.decision, reason: e.data.reason }, mediaType: 'application/json' },
      ]);
    }
    case 'TurnCompleted': {
      const last = lastChunk({ ...next, answer: e.data.text }, e.data.text, at.cursor);
      const done = status(last.view, 'TASK_STATE_COMPLETED', at, e.data.text ? [{ text: e.data.text }] : []);
      return { frames: [...last.frames, ...done.frames], view: done.view };
    }
    case 'TurnFailed':
      return status({ ...next, pending: [] }, 'TASK_STATE_FAILED', at, [
        { text: publicFailureMessage(e.data.code, e.data.message) },
        { data: { code: e.data.code, retryable: e.data.retryable }, mediaType: 'application/json' },
      ]);
    case 'TurnCancelled':
      return status({ ...next, pending: [] }, 'TASK_STATE_CANCELED', at, [{ text: `The task was cancelled (${e.data.reason}).` }]);
    // No A2A counterpart: model-call bookkeeping, reasoning text (not part of the answer), the
    // assistant message's own start and end (the artifact carries the text), and the live input
    // and episode events whose effect shows in what the turn does next.
    case 'MessageStarted':
    case 'MessageCompleted':
    case 'ModelCallStarted':
    case 'ModelCallCompleted':
    case 'ThoughtDelta':
    case 'UserMessageInjected':
    case 'ReminderEmitted':
    case 'RewardComputed':
    case 'ApprovalVoted': // one approval of several (ADR 0048): the call still waits
      return { frames: [], view: next };
    // Session-level events carry no turn id; the guard above already returned for them.
    case 'SessionOpened':
    case 'EpisodeReset':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'SessionForked':
    case 'SessionRedriven':
      return { frames: [], view: next };
    default:
      return assertNever(e, 'hub event');
  }
}

/** The task as the session's events up to `upTo` (inclusive; all when omitted) make it; null when it has no `TurnRequested` there. */
export function foldTask(events: readonly Recorded<HubEvent>[], ref: TaskRef, upTo = Number.POSITIVE_INFINITY): TaskView {
  let view = initialTaskView(ref);
  for (const e of events) if (e.globalPosition <= upTo) view = encode(e, view).view;
  return view;
}

/** Whether the task can change no more. */
export function isTerminal(view: TaskView): boolean {
  return view.status !== null && TERMINAL_STATES.includes(view.status.state);
}

/** Where a `SendStreamingMessage` stream ends: the task is done, or waits for the client. */
export function isInterrupted(view: TaskView): boolean {
  return isTerminal(view) || view.status?.state === 'TASK_STATE_INPUT_REQUIRED';
}

/** The `Task` object of a view (null: no such task). `historyLength` 0 leaves the history out. */
export function taskOf(view: TaskView, opts: { historyLength?: number; artifacts?: boolean } = {}): WireTask | null {
  if (!view.status) return null;
  const history = [
    ...(view.userMessage ? [view.userMessage] : []),
    ...(view.status.state === 'TASK_STATE_COMPLETED' && view.status.message ? [view.status.message] : []),
  ];
  const kept = opts.historyLength === undefined ? history : opts.historyLength === 0 ? [] : history.slice(-opts.historyLength);
  const artifacts: WireArtifact[] = view.answer ? [{ artifactId: ANSWER_ARTIFACT_ID, name: ANSWER_ARTIFACT_ID, parts: [{ text: view.answer }] }] : [];
  return {
    id: view.taskId,
    contextId: view.ref.sessionId,
    status: view.status,
    ...(opts.artifacts === false || artifacts.length === 0 ? {} : { artifacts }),
    ...(kept.length ? { history: kept } : {}),
    metadata: hub(view.cursor, { sessionId: view.ref.sessionId, turnId: view.ref.turnId }),
  };
}

/** The first event of every task stream (A2A v1.0 §3.1.6): the task as of the view's cursor. */
export function taskFrame(view: TaskView): StreamResponse | null {
  const task = taskOf(view);
  return task ? { task } : null;
}

function hub(cursor: number, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { [HUB_METADATA_KEY]: { cursor, ...more } };
}

function message(view: TaskView, id: string, role: WireMessage['role'], parts: WirePart[], clientId?: string): WireMessage {
  return { messageId: clientId ?? id, contextId: view.ref.sessionId, taskId: view.taskId, role, parts };
}

function messageIdOf(context: Record<string, unknown>): string | undefined {
  const a2a = context['a2a'];
  const id = typeof a2a === 'object' && a2a !== null ? (a2a as Record<string, unknown>)['messageId'] : undefined;
  return typeof id === 'string' ? id : undefined;
}

function status(view: TaskView, state: TaskState, at: { cursor: number; time: string }, parts: WirePart[] = []): Encoded {
  const msg = parts.length ? message(view, `${view.ref.turnId}:${at.cursor}`, 'ROLE_AGENT', parts) : undefined;
  const s: WireStatus = { state, ...(msg ? { message: msg } : {}), timestamp: at.time };
  const after = { ...view, status: s };
  return { frames: [{ statusUpdate: { taskId: view.taskId, contextId: view.ref.sessionId, status: s, metadata: hub(at.cursor) } }], view: after };
}

/** `input-required`, naming the first approval still waiting and how to answer it. */
function asking(view: TaskView, at: { cursor: number; time: string }): Encoded {
  const a = view.pending[0];
  const text = `Allow ${a.toolName}? ${a.reason} Answer with a message on this task: a data part {"decision": "approved"} or {"decision": "denied"} (or the text "approve" / "deny").`;
  const data = {
    approvalId: a.approvalId,
    toolCallId: a.toolCallId,
    toolName: a.toolName,
    input: a.input ?? null,
    riskTier: a.riskTier,
    reason: a.reason,
    deadlineAt: a.deadlineAt,
  };
  return status(view, 'TASK_STATE_INPUT_REQUIRED', at, [{ text }, { data, mediaType: 'application/json' }]);
}

function toolPart(call: Record<string, unknown>): WirePart {
  return { data: { toolCall: call }, mediaType: 'application/json' };
}

function chunk(view: TaskView, text: string, cursor: number): Encoded {
  const frame: StreamResponse = {
    artifactUpdate: {
      taskId: view.taskId,
      contextId: view.ref.sessionId,
      artifact: { artifactId: ANSWER_ARTIFACT_ID, name: ANSWER_ARTIFACT_ID, parts: [{ text }] },
      ...(view.answerStarted ? { append: true } : {}),
      metadata: hub(cursor),
    },
  };
  return { frames: [frame], view: { ...view, answerStarted: true } };
}

/** The answer's last chunk: empty when its text went out already, the whole text when none did. */
function lastChunk(view: TaskView, text: string, cursor: number): Encoded {
  if (!view.answerStarted && text === '') return { frames: [], view };
  const artifact: WireArtifact = { artifactId: ANSWER_ARTIFACT_ID, name: ANSWER_ARTIFACT_ID, ...(view.answerStarted ? {} : { parts: [{ text }] }) };
  const frame: StreamResponse = {
    artifactUpdate: {
      taskId: view.taskId,
      contextId: view.ref.sessionId,
      artifact,
      ...(view.answerStarted ? { append: true } : {}),
      lastChunk: true,
      metadata: hub(cursor),
    },
  };
  return { frames: [frame], view: { ...view, answerStarted: true } };
}
