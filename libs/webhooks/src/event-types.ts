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

/** What a passed deadline did (`approval.expired`'s `outcome`): the approval's `onExpiry`. */
export type ExpiryOutcome = 'denied' | 'allowed' | 'escalated';

/**
 * Pure: the webhook events a log event becomes, in order (most become one, many none). Only
 * session streams produce webhooks. Every answer the deadline gave is `approval.expired`, its
 * `outcome` saying which (ADR 0050): a denial or an approval by the deadline's actor, and an
 * escalation, which is also the `approval.requested` of the new approval its approvers answer.
 */
export function webhookEventsOf(e: LogEvent): WebhookEvent[] {
  const sessionId = sessionIdOf(e.streamId);
  if (sessionId === null || e.data === null || typeof e.data !== 'object') return [];
  const d = e.data as Data;
  const base = { sessionId, position: e.globalPosition };
  const at = e.createdAt;
  switch (e.type) {
    case 'SessionOpened':
      return [{ type: 'session.opened', timestamp: at, data: { ...base, openedVia: d.openedVia } }];
    case 'ApprovalRequested': {
      const requested: WebhookEvent = {
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
          ...(typeof d.escalatedFrom === 'string' ? { escalatedFrom: d.escalatedFrom } : {}),
        },
      };
      if (typeof d.escalatedFrom !== 'string') return [requested];
      // Only the deadline escalates (ADR 0048): the approval it closed expired first.
      const expired: WebhookEvent = {
        type: 'approval.expired',
        timestamp: at,
        data: {
          ...base,
          approvalId: d.escalatedFrom,
          turnId: d.turnId,
          outcome: 'escalated' satisfies ExpiryOutcome,
          escalatedTo: d.approvalId,
          decision: null,
          by: { type: 'system', id: DEADLINE_ACTOR },
          via: 'internal',
          reason: 'nobody answered by the deadline',
        },
      };
      return [expired, requested];
    }
    case 'ApprovalResolved': {
      const by = d.by as { type?: string; id?: string } | undefined;
      const data = { ...base, approvalId: d.approvalId, turnId: d.turnId, decision: d.decision, by: d.by, via: d.via, reason: d.reason ?? null };
      if (by?.type !== 'system' || by.id !== DEADLINE_ACTOR) return [{ type: 'approval.resolved', timestamp: at, data }];
      const outcome: ExpiryOutcome = d.decision === 'approved' ? 'allowed' : 'denied';
      return [{ type: 'approval.expired', timestamp: at, data: { ...data, outcome } }];
    }
    case 'TurnCompleted':
      return [{ type: 'turn.completed', timestamp: at, data: { ...base, turnId: d.turnId, text: d.text, stopReason: d.stopReason, usage: d.usage } }];
    case 'TurnFailed':
      return [{ type: 'turn.failed', timestamp: at, data: { ...base, turnId: d.turnId, code: d.code, message: d.message } }];
    default:
      return [];
  }
}

/** Whether an endpoint subscribed to `events` receives `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(WILDCARD) || events.includes(type);
}
