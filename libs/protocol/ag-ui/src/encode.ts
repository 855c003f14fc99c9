import { EventType, type BaseEvent, type Interrupt, type Message } from '@ag-ui/core';
import { assertNever, evolveHarness, publicFailureMessage, type HubEvent, type Recorded } from '@hub/domain';
import { AG_UI_PROTOCOL_VERSION, APPROVAL_REASON, APPROVAL_RESPONSE_SCHEMA, HUB_NAMESPACE } from './schema';
import { patchOf } from './state-patch';
import { factsOf, type AgUiView, type PendingApproval } from './view';

/** The AG-UI run one response streams: `threadId` is the hub session, `follow` the hub turn it ends with. */
export interface RunView {
  readonly threadId: string;
  readonly runId: string;
  /** The turn whose end (or approval) ends this run; null: nothing to wait for. */
  readonly follow: string | null;
}

/**
 * One AG-UI event to send. `cursor` (the hub's global position) is on the last frame of each hub
 * event's frames and on a run's opening: it is the SSE `id`, and what `Last-Event-ID` resumes after.
 */
export interface Frame {
  readonly event: BaseEvent;
  readonly cursor?: number;
}

export interface StartOptions {
  /** The position the snapshots are current at. */
  readonly cursor: number;
  /** MESSAGES_SNAPSHOT too (a reconnect: the client's messages may be behind the hub's). */
  readonly messages: boolean;
}

/**
 * A run's opening: RUN_STARTED, MESSAGES_SNAPSHOT (on reconnect), STATE_SNAPSHOT (the
 * HarnessState at the cursor), and TEXT_MESSAGE_START again for each assistant message still
 * being written, so the text that follows continues it on this stream.
 */
export function startRun(view: AgUiView, run: RunView, opts: StartOptions): { view: AgUiView; frames: Frame[] } {
  const events: BaseEvent[] = [
    {
      type: EventType.RUN_STARTED,
      threadId: run.threadId,
      runId: run.runId,
      protocolVersion: AG_UI_PROTOCOL_VERSION,
      ...hubMetadata({ turnId: run.follow, cursor: opts.cursor }),
    } as BaseEvent,
  ];
  if (opts.messages) events.push({ type: EventType.MESSAGES_SNAPSHOT, messages: messagesOf(view) } as BaseEvent);
  events.push({ type: EventType.STATE_SNAPSHOT, snapshot: view.harness.state } as BaseEvent);
  const writing = view.harness.state.messages.filter((m) => m.role === 'assistant' && (m.status === 'pending' || m.status === 'streaming')).map((m) => m.id);
  for (const messageId of writing) events.push(textStart(messageId));
  return { view: { ...view, open: writing }, frames: withCursor(events, opts.cursor) };
}

/**
 * One recorded event as AG-UI events, and its HarnessState change as one STATE_DELTA. Total over
 * the event union: a new event type does not compile until it is placed here.
 */
export function encodeEvent(view: AgUiView, event: Recorded<HubEvent>): { view: AgUiView; frames: Frame[] } {
  // The ops the transport sends for this event, written as JSON Patch against the same state.
  const step = evolveHarness(view.harness, event);
  const { patch } = patchOf(view.harness.state, step.ops);
  const facts: AgUiView = { ...view, ...factsOf(view, event), harness: step.view };
  const { open, events } = eventsFor({ ...facts, open: view.open }, event);
  if (patch.length > 0) events.push({ type: EventType.STATE_DELTA, delta: patch } as BaseEvent);
  return { view: { ...facts, open }, frames: withCursor(events, event.globalPosition) };
}

/**
 * How the run ends, when it does: its turn completed (RUN_FINISHED), was cancelled
 * (RUN_FINISHED, outcome `cancelled`), failed (RUN_ERROR), or waits for approvals (RUN_FINISHED,
 * outcome `interrupt`, one interrupt per approval). Open text messages are ended first. Null
 * while the turn runs.
 */
export function finishRun(view: AgUiView, run: RunView): { view: AgUiView; frames: Frame[] } | null {
  const close = (events: BaseEvent[]) => ({ view: { ...view, open: [] }, frames: withCursor([...view.open.map(textEnd), ...events]) });
  const finished = (extra: Record<string, unknown> = {}) => ({ type: EventType.RUN_FINISHED, threadId: run.threadId, runId: run.runId, ...extra }) as BaseEvent;
  if (run.follow === null) return close([finished()]);
  const end = view.ended[run.follow];
  if (end?.kind === 'completed') return close([finished({ result: { text: end.text } })]);
  if (end?.kind === 'cancelled') return close([finished({ outcome: { type: 'cancelled' } })]);
  if (end?.kind === 'failed') {
    return close([
      {
        type: EventType.RUN_ERROR,
        message: publicFailureMessage(end.code, end.message),
        code: end.code,
        ...hubMetadata({ retryable: end.retryable }),
      } as BaseEvent,
    ]);
  }
  const waiting = Object.values(view.pending).filter((p) => p.turnId === run.follow);
  if (waiting.length > 0) return close([finished({ outcome: { type: 'interrupt', interrupts: waiting.map(interruptOf) } })]);
  return null;
}

/** The conversation as AG-UI messages: user and assistant messages, each tool result after its call. */
export function messagesOf(view: AgUiView): Message[] {
  const out: Message[] = [];
  for (const m of view.harness.state.messages) {
    if (m.role === 'user') {
      out.push({ id: m.id, role: 'user', content: m.content });
      continue;
    }
    const calls = (m.toolCalls ?? []).map((t) => ({
      id: t.id,
      type: 'function' as const,
      function: { name: t.name, arguments: view.toolCalls[t.id]?.args ?? '{}' },
    }));
    out.push({ id: m.id, role: 'assistant', content: m.content, ...(calls.length > 0 ? { toolCalls: calls } : {}) } as Message);
    for (const t of m.toolCalls ?? []) {
      const result = view.toolCalls[t.id]?.result;
      if (result !== undefined) out.push({ id: resultMessageId(t.id), role: 'tool', toolCallId: t.id, content: result } as Message);
    }
  }
  return out;
}

/** The id of the tool message that carries a tool call's result. */
export const resultMessageId = (toolCallId: string) => `${toolCallId}:result`;

export function interruptOf(p: PendingApproval): Interrupt {
  return {
    id: p.approvalId,
    reason: APPROVAL_REASON,
    message: `Allow ${p.toolName}? ${p.reason}`,
    toolCallId: p.toolCallId,
    responseSchema: APPROVAL_RESPONSE_SCHEMA,
    ...(p.deadlineAt === null ? {} : { expiresAt: p.deadlineAt }),
    metadata: { [HUB_NAMESPACE]: { toolName: p.toolName, riskTier: p.riskTier, turnId: p.turnId } },
  };
}

function eventsFor(view: AgUiView, event: HubEvent): { open: readonly string[]; events: BaseEvent[] } {
  let open = view.open;
  const events: BaseEvent[] = [];
  const start = (messageId: string) => {
    if (open.includes(messageId)) return;
    open = [...open, messageId];
    events.push(textStart(messageId));
  };
  const end = (messageId: string) => {
    if (!open.includes(messageId)) return;
    open = open.filter((id) => id !== messageId);
    events.push(textEnd(messageId));
  };
  switch (event.type) {
    case 'MessageStarted':
      start(event.data.messageId);
      break;
    case 'TextDelta':
      if (event.data.text === '') break;
      start(event.data.messageId);
      events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: event.data.messageId, delta: event.data.text } as BaseEvent);
      break;
    case 'MessageCompleted':
      end(event.data.messageId);
      break;
    case 'ToolCallStarted': {
      const { toolCallId, name, messageId } = event.data;
      events.push(
        { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name, parentMessageId: messageId } as BaseEvent,
        { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: view.toolCalls[toolCallId]?.args ?? '{}' } as BaseEvent,
        { type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent,
      );
      break;
    }
    case 'ToolCallCompleted': {
      const { toolCallId, output } = event.data;
      events.push({ type: EventType.TOOL_CALL_RESULT, messageId: resultMessageId(toolCallId), toolCallId, content: output, role: 'tool' } as BaseEvent);
      break;
    }
    case 'TurnCompleted':
    case 'TurnFailed':
    case 'TurnCancelled':
      // A message its turn left unfinished (failed, cancelled) ends on the wire with the turn.
      for (const messageId of open.filter((id) => turnOf(view, id) === event.data.turnId)) end(messageId);
      break;
    // Shown through the state (STATE_DELTA) or the run's end (finishRun), or not part of a
    // conversation a frontend renders: thoughts, model calls, tool progress, approvals, the
    // session itself, OpenEnv facts, reminders, lineage, a turn waiting for a worker.
    case 'SessionOpened':
    case 'TurnRequested':
    case 'TurnStarted':
    case 'ModelCallStarted':
    case 'ThoughtDelta':
    case 'ModelCallCompleted':
    case 'ToolCallUpdated':
    case 'ApprovalRequested':
    case 'ApprovalResolved':
    case 'ApprovalVoted':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'UserMessageInjected':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'ReminderEmitted':
    case 'SessionForked':
    case 'SessionRedriven':
    case 'TurnQueued':
      break;
    default:
      return assertNever(event, 'HubEvent');
  }
  return { open, events };
}

function turnOf(view: AgUiView, messageId: string): string | undefined {
  const index = view.harness.messageIndex[messageId];
  return index === undefined ? undefined : view.harness.state.messages[index]?.turnId;
}

const textStart = (messageId: string): BaseEvent => ({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }) as BaseEvent;
const textEnd = (messageId: string): BaseEvent => ({ type: EventType.TEXT_MESSAGE_END, messageId }) as BaseEvent;

function hubMetadata(data: Record<string, unknown>): { metadata: Record<string, unknown> } {
  return { metadata: { [HUB_NAMESPACE]: data } };
}

/** The cursor goes on the last frame: a client that has it has everything before it. */
function withCursor(events: readonly BaseEvent[], cursor?: number): Frame[] {
  return events.map((event, i) => (cursor !== undefined && i === events.length - 1 ? { event, cursor } : { event }));
}
