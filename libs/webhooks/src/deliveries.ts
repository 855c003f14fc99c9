import { asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { TEST_EVENT_TYPE } from './event-types';
import { newMessageId } from './outbox';

/** One attempt as the delivery log shows it. */
export interface AttemptView {
  messageId: string;
  eventType: string;
  attempt: number;
  startedAt: string;
  latencyMs: number;
  responseStatus: number | null;
  outcome: string;
  error: string | null;
  nextAttemptAt: string | null;
}

/** One message and where it stands. */
export interface MessageView {
  id: string;
  eventType: string;
  eventPosition: number | null;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  payload: unknown;
}

/** The delivery log of a tenant's endpoints, and redelivery; every statement under the tenant's scope. */
export class WebhookDeliveries {
  constructor(private readonly pool: Pool) {}

  /** Attempts of the endpoint, newest first, `limit` of them, before `before` (an ISO time) when given. */
  async attempts(tenantId: string, endpointId: string, opts: { limit: number; before?: string; messageId?: string }): Promise<AttemptView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<{
      message_id: string;
      event_type: string;
      attempt: number;
      started_at: Date;
      latency_ms: number;
      response_status: number | null;
      outcome: string;
      error: string | null;
      next_attempt_at: Date | null;
    }>(
      `SELECT a.message_id, m.event_type, a.attempt, a.started_at, a.latency_ms, a.response_status, a.outcome, a.error, a.next_attempt_at
         FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
        WHERE a.tenant_id = $1 AND a.endpoint_id = $2 AND ($3::timestamptz IS NULL OR a.started_at < $3) AND ($5::text IS NULL OR a.message_id = $5)
        ORDER BY a.started_at DESC, a.id DESC LIMIT $4`,
      [tenantId, endpointId, opts.before ?? null, opts.limit, opts.messageId ?? null],
    );
    return rows.map((r) => ({
      messageId: r.message_id,
      eventType: r.event_type,
      attempt: r.attempt,
      startedAt: r.started_at.toISOString(),
      latencyMs: r.latency_ms,
      responseStatus: r.response_status,
      outcome: r.outcome,
      error: r.error,
      nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    }));
  }

  /** Messages of the endpoint, newest first. */
  async messages(tenantId: string, endpointId: string, limit: number): Promise<MessageView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<{
      id: string;
      event_type: string;
      event_position: string | null;
      status: string;
      attempts: number;
      next_attempt_at: Date | null;
      created_at: Date;
      payload: unknown;
    }>(
      `SELECT id, event_type, event_position::text, status, attempts, next_attempt_at, created_at, payload FROM webhook_messages
        WHERE tenant_id = $1 AND endpoint_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
      [tenantId, endpointId, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      eventType: r.event_type,
      eventPosition: r.event_position === null ? null : Number(r.event_position),
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
      createdAt: r.created_at.toISOString(),
      payload: r.payload,
    }));
  }

  /**
   * Delivers messages again, with their own `webhook-id` and a fresh schedule: one message
   * (`messageId`), or every message of the endpoint made since `since`. Returns how many.
   */
  async redeliver(tenantId: string, endpointId: string, which: { messageId: string } | { since: string }): Promise<number> {
    const byId = 'messageId' in which;
    const { rowCount } = await asTenant(this.pool, tenantId).query(
      `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL
        WHERE tenant_id = $1 AND endpoint_id = $2 AND ${byId ? 'id = $3' : 'created_at >= $3::timestamptz'}`,
      [tenantId, endpointId, byId ? which.messageId : which.since],
    );
    return rowCount ?? 0;
  }

  /** Queues a `webhook.test` message to the endpoint (whatever it subscribes to); returns its id. */
  async sendTest(tenantId: string, endpointId: string): Promise<string> {
    const id = newMessageId();
    const payload = { type: TEST_EVENT_TYPE, timestamp: new Date().toISOString(), data: { endpointId } };
    await asTenant(this.pool, tenantId).query(
      `INSERT INTO webhook_messages (id, tenant_id, endpoint_id, event_type, event_position, payload, status, next_attempt_at) VALUES ($1, $2, $3, $4, NULL, $5, 'pending', now())`,
      [id, tenantId, endpointId, TEST_EVENT_TYPE, JSON.stringify(payload)],
    );
    return id;
  }
}
