import { assertNever, publicFailureMessage, type HubEvent, type Recorded } from '@hub/domain';
import { chatMessages, type LlmRequestMessages } from './llm-request';
import type { HarnessEvent, HarnessEventType } from './schema';

/** What the encoder remembers between events: tool names by call id (results carry only the id). */
export interface HarnessEventView {
  toolNames: Record<string, string>;
}

export const initialHarnessEventView = (): HarnessEventView => ({ toolNames: {} });

/**
 * One hub event as RFC 005 `HarnessEvent`s: a total map over `HubEvent` (a new event does not
 * compile until it is decided here). Bookkeeping events (session/turn/message start) map to
 * nothing; a failed or cancelled turn is an `error` followed by the `turn_complete` the RFC
 * promises as every turn's last event.
 *
 * `llm_request` carries the RFC's `{messages, model}`: the messages come from `requests` (the
 * log holds what they are built from, not a copy of them); without it they are `[]`.
 */
export function encodeHarnessEvents(
  event: Recorded<HubEvent>,
  view: HarnessEventView,
  requests?: LlmRequestMessages,
): { view: HarnessEventView; events: HarnessEvent[] } {
  const out = (type: HarnessEventType, data: Record<string, unknown>): HarnessEvent => ({
    type,
    timestamp: Date.parse(event.createdAt) / 1000,
    data,
    cursor: event.globalPosition,
  });
  // Rewards (RewardComputed) sit beside the observation and in a trajectory's `rewards`, never in
  // the harness's event stream: RFC 005 keeps the reward out of the harness's reach. Live input
  // (steered messages, reminders) has no RFC 005 HarnessEvent type.
  switch (event.type) {
    case 'SessionOpened':
    case 'TurnRequested':
    case 'TurnStarted':
    case 'MessageStarted':
    case 'MessageCompleted':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'UserMessageInjected':
    case 'ReminderQueued':
    case 'ReminderRevoked':
    case 'ReminderEmitted':
    case 'SessionForked':
    case 'SessionRedriven':
    case 'ApprovalVoted': // one approval of several (ADR 0048): nothing to act on until it is decided
      return { view, events: [] };
    case 'ModelCallStarted': {
      const e = event.data;
      const messages = chatMessages(requests?.(e.callId) ?? []);
      return {
        view,
        events: [out('llm_request', { messages, model: e.model, provider: e.provider, message_count: e.messageCount, tool_names: e.toolNames, step: e.step })],
      };
    }
    case 'TextDelta':
      return { view, events: [out('llm_chunk', { content: event.data.text, index: event.data.offset })] };
    case 'ThoughtDelta':
      return { view, events: [out('llm_chunk', { content: event.data.text, index: event.data.offset, thought: true })] };
    case 'ModelCallCompleted': {
      const e = event.data;
      const toolCalls = e.toolCalls.map((c) => ({ id: c.toolCallId, name: c.name, arguments: c.input }));
      return { view, events: [out('llm_response', { content: e.text, usage: usageOf(e.usage), finish_reason: e.finishReason, tool_calls: toolCalls })] };
    }
    case 'ToolCallStarted': {
      const e = event.data;
      const next = { toolNames: { ...view.toolNames, [e.toolCallId]: e.name } };
      return {
        view: next,
        events: [out('tool_call', { tool_name: e.name, arguments: e.input, tool_call_id: e.toolCallId, executor: e.executor, policy: e.policy })],
      };
    }
    case 'ToolCallUpdated':
      return { view, events: [out('text_output', { text: event.data.message, tool_call_id: event.data.toolCallId })] };
    case 'ToolCallCompleted': {
      const e = event.data;
      const ok = e.status === 'complete';
      const data = {
        tool_name: view.toolNames[e.toolCallId] ?? null,
        result: ok ? e.output : null,
        error: ok ? null : e.output,
        tool_call_id: e.toolCallId,
        status: e.status,
      };
      return { view, events: [out('tool_result', data)] };
    }
    case 'TurnQueued': {
      // RFC 005 has no waiting state; `text_output` is where the harness says what it is doing
      // (as for approvals), and `queued` names the wait for a client that shows it (ADR 0033).
      const e = event.data;
      return { view, events: [out('text_output', { text: 'waiting for a worker', queued: { turn_id: e.turnId, reason: e.reason, since: e.since } })] };
    }
    case 'ApprovalRequested': {
      const e = event.data;
      const text = `approval requested for ${e.toolName} (${e.riskTier} risk): ${e.reason}`;
      return {
        view,
        events: [
          out('text_output', {
            text,
            approval: { approval_id: e.approvalId, tool_call_id: e.toolCallId, tool_name: e.toolName, risk_tier: e.riskTier, status: 'pending' },
          }),
        ],
      };
    }
    case 'ApprovalResolved': {
      const e = event.data;
      return {
        view,
        events: [
          out('text_output', {
            text: `approval ${e.decision}`,
            approval: { approval_id: e.approvalId, tool_call_id: e.toolCallId, status: e.decision, via: e.via },
          }),
        ],
      };
    }
    case 'TurnCompleted':
      return {
        view,
        events: [
          out('turn_complete', {
            response: event.data.text,
            stop_reason: event.data.stopReason,
            usage: usageOf(event.data.usage),
            ...(event.data.done ? { done: true } : {}),
          }),
        ],
      };
    case 'TurnFailed': {
      const e = event.data;
      return {
        view,
        events: [
          out('error', { message: publicFailureMessage(e.code, e.message), code: e.code, recoverable: e.retryable }),
          out('turn_complete', { response: '', status: 'failed' }),
        ],
      };
    }
    case 'TurnCancelled':
      return {
        view,
        events: [
          out('error', { message: `turn cancelled (${event.data.reason})`, code: 'CANCELLED', recoverable: true }),
          out('turn_complete', { response: '', status: 'cancelled' }),
        ],
      };
    default:
      return assertNever(event, 'hub event');
  }
}

/** Encodes a run of events in order (a turn, or a whole episode's trajectory). */
export function encodeHarnessEventList(events: readonly Recorded<HubEvent>[], requests?: LlmRequestMessages): HarnessEvent[] {
  let view = initialHarnessEventView();
  const all: HarnessEvent[] = [];
  for (const e of events) {
    const r = encodeHarnessEvents(e, view, requests);
    view = r.view;
    all.push(...r.events);
  }
  return all;
}

function usageOf(u: { promptTokens: number; completionTokens: number; totalTokens: number }) {
  return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens };
}
