import { sessionIdOf } from '@hub/domain';

/** The event types an endpoint may subscribe to (`*`: every one). */
export const WEBHOOK_EVENT_TYPES = ['approval.requested', 'approval.resolved', 'approval.expired', 'turn.completed', 'turn.failed', 'session.opened'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Subscribes an endpoint to every type, present and future. */
export const WILDCARD = '*';
/** The type of `POST /v1/webhooks/:id/test`'s message (sent whatever the endpoint subscribes to). */
export const TEST_EVENT_TYPE = 'webhook.test';

/** What the outbox reads of a log event. */
export interface LogEvent {
  type: string;
  data: unknown;
  tenantId: string;
  streamId: string;
  globalPosition: number;
  createdAt: string;
}

/** A webhook event before it is addressed to an endpoint (approval links are added per endpoint). */
export interface WebhookEvent {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The log's event types the outbox reads `data` of. */
export const OUTBOX_READS: readonly string[] = ['SessionOpened', 'ApprovalRequested', 'ApprovalResolved', 'TurnCompleted', 'TurnFailed'];

/** The actor of a decision the deadline made (apps/worker's `expireApproval`). */
const DEADLINE_ACTOR = 'approval-deadline';

type Data = Record<string, unknown>;

/**
 * Pure: the webhook event a log event becomes, or null when it is none. Only session streams
 * produce webhooks. A denial by the approval deadline is `approval.expired`.
 */
export function webhookEventOf(e: LogEvent): WebhookEvent | null {
  const sessionId = sessionIdOf(e.streamId);
  if (sessionId === null || e.data === null || typeof e.data !== 'object') return null;
  const d = e.data as Data;
  const base = { sessionId, position: e.globalPosition };
  const at = e.createdAt;
  switch (e.type) {
    case 'SessionOpened':
      return { type: 'session.opened', timestamp: at, data: { ...base, openedVia: d.openedVia } };
    case 'ApprovalRequested':
      return {
        type: 'approval.requested',
        timestamp: at,
        data: {
          ...base,
          approvalId: d.approvalId,
          turnId: d.turnId,
          toolCallId: d.toolCallId,
          tool: d.toolName,
          arguments: d.input ?? null,
          risk: d.riskTier,
          reason: d.reason,
          deadlineAt: d.deadlineAt ?? null,
        },
      };
    case 'ApprovalResolved': {
      const by = d.by as { type?: string; id?: string } | undefined;
      const expired = by?.type === 'system' && by.id === DEADLINE_ACTOR;
      return {
        type: expired ? 'approval.expired' : 'approval.resolved',
        timestamp: at,
        data: { ...base, approvalId: d.approvalId, turnId: d.turnId, decision: d.decision, by: d.by, via: d.via, reason: d.reason ?? null },
      };
    }
    case 'TurnCompleted':
      return { type: 'turn.completed', timestamp: at, data: { ...base, turnId: d.turnId, text: d.text, stopReason: d.stopReason, usage: d.usage } };
    case 'TurnFailed':
      return { type: 'turn.failed', timestamp: at, data: { ...base, turnId: d.turnId, code: d.code, message: d.message } };
    default:
      return null;
  }
}

/** Whether an endpoint subscribed to `events` receives `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(WILDCARD) || events.includes(type);
}
