import { assertNever, publicFailureMessage, type HubEvent, type Recorded, type Reminder } from '@hub/domain';
import { rpcNotification } from './jsonrpc';

// `encode(event, view)`: the ACP projection of the log. A total map over HubEvent: events with
// no ACP form map to no update. Standard variants keep ACP fields in place; every vendor field
// rides under `_meta.harn` (Harn #904/#905).

/** One `session/update` payload (`params.update`). */
export type SessionUpdate = { sessionUpdate: string } & Record<string, unknown>;
/** A whole `session/update` notification as it goes on the wire. */
export type SessionUpdateNotification = ReturnType<typeof rpcNotification> & {
  params: { sessionId: string; update: SessionUpdate; _meta: { harn: { cursor: number } } };
};

/** What the encoder remembers between events of one session. */
export interface AcpView {
  /** Visible text so far per assistant message (for `visible_text`). */
  text: Record<string, string>;
  /** Tool calls by id; `executor` is the hub's own name for where it runs (see `harnExecutor`). */
  tools: Record<string, { name: string; executor: string; input: unknown }>;
  /** Injected messages (`session/inject`) by turn id: the agent-owned messageId and the text. */
  injects: Record<string, { messageId: string; text: string; mode: string }>;
  /** Queued reminders by id (for `reminder_emitted`). */
  reminders: Record<string, Reminder>;
}

export const initialAcpView = (): AcpView => ({ text: {}, tools: {}, injects: {}, reminders: {} });

/** The Harn session-update extensions this hub can emit (advertised at `initialize`). */
export const HARN_SESSION_UPDATE_EXTENSIONS = [
  'progress',
  'log',
  'hitl_request',
  'hitl_resolved',
  'user_message',
  'reminder_emitted',
  'live_session_client',
] as const;
/** The `_meta.harn` fields on `tool_call` / `tool_call_update` (advertised at `initialize`). */
export const HARN_TOOL_LIFECYCLE_FIELDS = ['executor', 'durationMs', 'error', 'errorCategory', 'audit', 'policy'] as const;
/** The `_meta.harn` fields on `agent_message_chunk` content. */
export const HARN_CONTENT_EXTENSION_FIELDS = ['visible_text', 'visible_delta'] as const;

const TOOL_KINDS: Record<string, string> = {
  read_file: 'read',
  write_file: 'edit',
  delete_file: 'delete',
  list_files: 'search',
  calculate: 'think',
  fetch: 'fetch',
};
/** ACP `ToolKind` from a hub tool name. */
export const toolKind = (name: string): string => TOOL_KINDS[name] ?? 'other';

const text = (t: string) => ({ type: 'text', text: t });
const harn = (fields: Record<string, unknown>) => ({ _meta: { harn: fields } });

/** Harn's `_meta.harn.executor` variants (bridge spec, "executor tag"). */
export type HarnExecutor = 'harn_builtin' | 'host_bridge' | 'provider_native' | { kind: 'mcp_server'; serverName: string };

/**
 * The Harn executor of a hub tool call, from the executor the log records: the hub's own tools
 * (`builtin`) run agent-side like Harn's stdlib; `mcp:<server>` came from that MCP server; a
 * wrapped harness (`harness:<kind>:<name>`) ran the tool inside its own process and reported the
 * result, which the hub never dispatches: Harn's `provider_native`. Anything else (`none`: an
 * unknown tool that never ran) is unknown, and the spec omits the field then.
 */
export function harnExecutor(executor: string | undefined): HarnExecutor | undefined {
  if (executor === 'builtin') return 'harn_builtin';
  if (executor?.startsWith('mcp:') && executor.length > 4) return { kind: 'mcp_server', serverName: executor.slice(4) };
  if (executor === 'harness' || executor?.startsWith('harness:')) return 'provider_native';
  return undefined;
}

/** `_meta.harn` fields with the executor mapped, and left out when unknown. */
const withExecutor = (executor: string | undefined, fields: Record<string, unknown>) => {
  const mapped = harnExecutor(executor);
  return harn(mapped === undefined ? fields : { executor: mapped, ...fields });
};

function toolUpdates(event: HubEvent, view: AcpView): SessionUpdate[] {
  switch (event.type) {
    case 'ToolCallStarted': {
      const d = event.data;
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId: d.toolCallId,
          title: d.name,
          kind: toolKind(d.name),
          status: d.policy === 'allow' ? 'in_progress' : 'pending',
          rawInput: d.input,
          ...withExecutor(d.executor, { policy: d.policy }),
        },
      ];
    }
    case 'ToolCallUpdated':
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: event.data.toolCallId,
          status: 'in_progress',
          content: [{ type: 'content', content: text(event.data.message) }],
        },
      ];
    case 'ToolCallCompleted': {
      const d = event.data;
      const tool = view.tools[d.toolCallId];
      const failed = d.status !== 'complete';
      const meta: Record<string, unknown> = { durationMs: d.durationMs };
      if (failed) Object.assign(meta, { error: d.output, errorCategory: d.status === 'denied' ? 'permission_denied' : 'tool_error' });
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: d.toolCallId,
          title: tool?.name ?? null,
          status: failed ? 'failed' : 'completed',
          content: [{ type: 'content', content: text(d.output) }],
          rawOutput: { output: d.output, status: d.status },
          ...withExecutor(tool?.executor, meta),
        },
      ];
    }
    default:
      return [];
  }
}

/**
 * Live input as Harn delivers it: an injected message reaches the model as `user_message` with its
 * agent-owned messageId (a steer inside the running turn, a queued one when its turn starts), and
 * a reminder rendered into a model request as `reminder_emitted`. Both are Harn extensions, so
 * every field rides under `_meta.harn`.
 */
function liveInputUpdates(event: HubEvent, view: AcpView): SessionUpdate[] {
  switch (event.type) {
    case 'TurnStarted': {
      const inject = view.injects[event.data.turnId];
      return inject
        ? [
            {
              sessionUpdate: 'user_message',
              ...harn({ messageId: inject.messageId, turnId: event.data.turnId, mode: inject.mode, content: text(inject.text) }),
            },
          ]
        : [];
    }
    case 'UserMessageInjected': {
      const d = event.data;
      const inject = view.injects[d.fromTurnId];
      return [
        {
          sessionUpdate: 'user_message',
          ...harn({
            messageId: inject?.messageId ?? d.messageId,
            turnId: d.turnId,
            fromTurnId: d.fromTurnId,
            mode: 'steer',
            beforeStep: d.beforeStep,
            content: text(d.text),
          }),
        },
      ];
    }
    case 'ReminderEmitted': {
      const r = view.reminders[event.data.reminderId];
      if (!r || event.data.renderedRole === null) return []; // audit_only: never rendered
      const reminder = {
        reminderId: r.reminderId,
        tags: r.tags,
        body: r.body,
        roleHint: r.roleHint,
        renderedRole: event.data.renderedRole,
        source: r.source,
        ttlTurns: r.ttlTurns,
        dedupeKey: r.dedupeKey,
        mode: r.mode,
      };
      return [{ sessionUpdate: 'reminder_emitted', ...harn({ reminder, turnId: event.data.turnId }) }];
    }
    default:
      return [];
  }
}

function updatesOf(event: HubEvent, view: AcpView): SessionUpdate[] {
  switch (event.type) {
    case 'TurnRequested':
      return [
        { sessionUpdate: 'user_message_chunk', content: text(event.data.prompt), ...harn({ turnId: event.data.turnId, messageId: event.data.userMessageId }) },
      ];
    case 'TextDelta': {
      const visible = (view.text[event.data.messageId] ?? '') + event.data.text;
      return [
        { sessionUpdate: 'agent_message_chunk', content: { ...text(event.data.text), ...harn({ visible_text: visible, visible_delta: event.data.text }) } },
      ];
    }
    case 'ThoughtDelta':
      return [{ sessionUpdate: 'agent_thought_chunk', content: text(event.data.text) }];
    case 'ModelCallStarted':
      return [
        {
          sessionUpdate: 'progress',
          ...harn({
            phase: 'model_call',
            message: `${event.data.provider}/${event.data.model}`,
            progress: event.data.step,
            data: { callId: event.data.callId, turnId: event.data.turnId },
          }),
        },
      ];
    case 'ToolCallStarted':
    case 'ToolCallUpdated':
    case 'ToolCallCompleted':
      return toolUpdates(event, view);
    case 'ApprovalRequested': {
      const d = event.data;
      return [
        {
          sessionUpdate: 'hitl_request',
          ...harn({
            requestId: d.approvalId,
            kind: 'approval',
            payload: { toolCallId: d.toolCallId, toolName: d.toolName, args: d.input, riskTier: d.riskTier, reason: d.reason, deadline: d.deadlineAt },
          }),
        },
      ];
    }
    case 'ApprovalResolved': {
      const d = event.data;
      const approval = {
        approvalId: d.approvalId,
        decision: d.decision,
        by: d.by,
        via: d.via,
        reason: d.reason,
        ...(d.input === undefined ? {} : { input: d.input }),
      };
      // The standard update lets any ACP client see the approval resolved (and by whom), and an
      // approver's edit as the call's new `rawInput`; the extension is Harn's own form.
      const edited = d.input === undefined ? {} : { rawInput: d.input };
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: d.toolCallId,
          status: d.decision === 'approved' ? 'in_progress' : 'failed',
          ...edited,
          ...harn({ approval }),
        },
        {
          sessionUpdate: 'hitl_resolved',
          ...harn({ requestId: d.approvalId, kind: 'approval', outcome: d.decision, toolCallId: d.toolCallId, by: d.by, via: d.via, reason: d.reason }),
        },
      ];
    }
    case 'TurnQueued': {
      // Harn's `progress` extension: the turn waits for a worker (ADR 0033). Its next update (the
      // model call's `progress`, or the end) is what says it no longer waits.
      const d = event.data;
      return [
        {
          sessionUpdate: 'progress',
          ...harn({ phase: 'queued', message: 'waiting for a worker', data: { turnId: d.turnId, reason: d.reason, since: d.since } }),
        },
      ];
    }
    case 'TurnFailed':
      return [
        {
          sessionUpdate: 'log',
          ...harn({
            level: 'error',
            message: publicFailureMessage(event.data.code, event.data.message),
            fields: { code: event.data.code, retryable: event.data.retryable, turnId: event.data.turnId },
          }),
        },
      ];
    case 'ApprovalVoted': {
      // One approval of several (ADR 0048): the call still waits. Any ACP client sees it pending,
      // Harn's extension says how far it is and who approved.
      const d = event.data;
      const approval = { approvalId: d.approvalId, status: 'pending', approvals: d.approvals, required: d.required, by: d.by, via: d.via, reason: d.reason };
      return [{ sessionUpdate: 'tool_call_update', toolCallId: d.toolCallId, status: 'pending', ...harn({ approval }) }];
    }
    case 'TurnStarted':
    case 'UserMessageInjected':
    case 'ReminderEmitted':
      return liveInputUpdates(event, view);
    case 'SessionOpened':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'MessageStarted':
    case 'ModelCallCompleted':
    case 'MessageCompleted':
    case 'TurnCompleted':
    case 'TurnCancelled':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'SessionForked':
    case 'SessionRedriven':
      return [];
    default:
      return assertNever(event, 'event');
  }
}

function evolve(view: AcpView, event: HubEvent): AcpView {
  if (event.type === 'TextDelta') return { ...view, text: { ...view.text, [event.data.messageId]: (view.text[event.data.messageId] ?? '') + event.data.text } };
  if (event.type === 'ToolCallStarted')
    return { ...view, tools: { ...view.tools, [event.data.toolCallId]: { name: event.data.name, executor: event.data.executor, input: event.data.input } } };
  if (event.type === 'ReminderQueued') return { ...view, reminders: { ...view.reminders, [event.data.reminderId]: event.data } };
  if (event.type === 'TurnRequested') {
    const acp = event.data.context['acp'];
    const inject = typeof acp === 'object' && acp !== null ? (acp as { messageId?: unknown; inject?: unknown }) : {};
    if (typeof inject.messageId !== 'string') return view;
    const entry = { messageId: inject.messageId, text: event.data.prompt, mode: typeof inject.inject === 'string' ? inject.inject : 'queue' };
    return { ...view, injects: { ...view.injects, [event.data.turnId]: entry } };
  }
  return view;
}

/**
 * The `session/update` notifications for one recorded event, and the view after it. Each carries
 * the event's global position as `params._meta.harn.cursor`.
 */
export function encode(event: Recorded<HubEvent>, view: AcpView, sessionId: string): { view: AcpView; notifications: SessionUpdateNotification[] } {
  const updates = updatesOf(event, view);
  const notifications = updates.map(
    (update) => rpcNotification('session/update', { sessionId, update, _meta: { harn: { cursor: event.globalPosition } } }) as SessionUpdateNotification,
  );
  return { view: evolve(view, event), notifications };
}

/** ACP `stopReason` for how a turn ended. */
export function stopReasonOf(
  end: 'completed' | 'max_steps' | 'cancelled' | 'length' | 'refused',
): 'end_turn' | 'max_turn_requests' | 'cancelled' | 'max_tokens' | 'refusal' {
  switch (end) {
    case 'completed':
      return 'end_turn';
    case 'max_steps':
      return 'max_turn_requests';
    case 'cancelled':
      return 'cancelled';
    case 'length':
      return 'max_tokens';
    case 'refused':
      return 'refusal';
    default:
      return assertNever(end, 'turn end');
  }
}
