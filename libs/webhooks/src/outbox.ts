import { randomBytes } from 'node:crypto';
import { asSystem, beginAs, systemScope } from '@hub/event-store';
import { readBatch } from '@hub/projections';
import type { Pool } from 'pg';
import { OUTBOX_READS, subscribes, webhookEventsOf, type LogEvent, type WebhookEvent } from './event-types';
import { signLink } from './links';

/** The outbox's checkpoint row in `webhook_checkpoints`. */
export const OUTBOX_CHECKPOINT = 'outbox';

export interface OutboxOptions {
  /** Where links point: the hub's public base URL (`HUB_PUBLIC_URL`). */
  publicUrl: string;
  /** How long a link lives when its approval has no deadline. */
  linkTtlMs: number;
  /** Log events read per step. Default 500. */
  batchSize?: number;
}

interface EndpointTarget {
  id: string;
  tenant_id: string;
  events: string[];
  created_at: Date;
}

/** A message the outbox writes. */
export interface OutboxMessage {
  id: string;
  tenantId: string;
  endpointId: string;
  type: string;
  position: number | null;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** A `webhook-id`: `msg_` and 16 random bytes, base64url. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * The webhook outbox: reads settled events after its checkpoint (a prefix of the log, in global
 * order, like the projections), turns each into the messages of the endpoints subscribed to it,
 * and writes those messages and the new checkpoint in one transaction, compare-and-set on the
 * checkpoint. A crash before COMMIT writes neither (the batch is read again); after, both. So a
 * message exists for every committed event an endpoint wanted, once, and for no other. Any
 * number of processes may step at once: a loser's COMMIT finds the checkpoint moved and writes nothing.
 */
export class WebhookOutbox {
  constructor(
    private readonly pool: Pool,
    private readonly o: OutboxOptions,
  ) {}

  /** One batch; resolves with how many log events it consumed (0: caught up, or another process got there). */
  async step(): Promise<number> {
    const from = await this.checkpoint();
    const { events } = await readBatch(this.pool, from, this.o.batchSize ?? 500, OUTBOX_READS);
    if (events.length === 0) return 0;
    const to = events[events.length - 1].globalPosition;
    const messages = await this.messagesOf(events);
    const client = await this.pool.connect();
    try {
      await beginAs(client, systemScope('webhooks'));
      const moved = await client.query('UPDATE webhook_checkpoints SET position = $2, updated_at = now() WHERE name = $1 AND position = $3', [
        OUTBOX_CHECKPOINT,
        to,
        from,
      ]);
      if (moved.rowCount !== 1) {
        await client.query('ROLLBACK');
        return 0;
      }
      if (messages.length > 0) {
        await client.query(
          `INSERT INTO webhook_messages (id, tenant_id, endpoint_id, event_type, event_position, payload, status, next_attempt_at)
           SELECT m.id, m.tenant_id, m.endpoint_id, m.type, m.position, m.payload, 'pending', now()
             FROM jsonb_to_recordset($1::jsonb) AS m(id text, tenant_id uuid, endpoint_id uuid, type text, position bigint, payload jsonb)
           ON CONFLICT (endpoint_id, event_position, event_type) DO NOTHING`,
          [
            JSON.stringify(
              messages.map((m) => ({ id: m.id, tenant_id: m.tenantId, endpoint_id: m.endpointId, type: m.type, position: m.position, payload: m.payload })),
            ),
          ],
        );
      }
      await client.query('COMMIT');
      return events.length;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  /**
   * Where the outbox stands. A new outbox starts at the log's head: endpoints receive what
   * happens after they exist, never the history before.
   */
  async checkpoint(): Promise<number> {
    const db = asSystem(this.pool, 'webhooks');
    if (!this.ensured) await this.ensure();
    const { rows } = await db.query<{ position: string }>('SELECT position::text AS position FROM webhook_checkpoints WHERE name = $1', [OUTBOX_CHECKPOINT]);
    return Number(rows[0].position);
  }

  private ensured = false;

  private async ensure(): Promise<void> {
    const db = asSystem(this.pool, 'webhooks');
    await db.query(
      `INSERT INTO webhook_checkpoints (name, position) SELECT $1, COALESCE((SELECT max(global_position) FROM events), 0) ON CONFLICT (name) DO NOTHING`,
      [OUTBOX_CHECKPOINT],
    );
    this.ensured = true;
  }

  private async messagesOf(events: readonly LogEvent[]): Promise<OutboxMessage[]> {
    const wanted: { e: LogEvent; w: WebhookEvent }[] = events.flatMap((e) => webhookEventsOf(e).map((w) => ({ e, w })));
    if (wanted.length === 0) return [];
    const tenants = [...new Set(wanted.map((x) => x.e.tenantId))];
    const db = asSystem(this.pool, 'webhooks');
    const { rows: endpoints } = await db.query<EndpointTarget>(
      'SELECT id, tenant_id, events, created_at FROM webhook_endpoints WHERE tenant_id = ANY($1::uuid[]) AND enabled',
      [tenants],
    );
    if (endpoints.length === 0) return [];
    const { rows: keys } = await db.query<{ tenant_id: string; link_key: string; approval_links: boolean }>(
      'SELECT tenant_id, link_key, approval_links FROM webhook_tenant_settings WHERE tenant_id = ANY($1::uuid[])',
      [tenants],
    );
    const linkKey = new Map(keys.filter((k) => k.approval_links).map((k) => [k.tenant_id, k.link_key]));
    const out: OutboxMessage[] = [];
    for (const { e, w } of wanted) {
      for (const ep of endpoints) {
        // An endpoint receives what was committed after it was made, and what it subscribes to.
        if (ep.tenant_id !== e.tenantId || !subscribes(ep.events, w.type) || Date.parse(e.createdAt) < ep.created_at.getTime()) continue;
        const id = newMessageId();
        out.push({
          id,
          tenantId: e.tenantId,
          endpointId: ep.id,
          type: w.type,
          position: e.globalPosition,
          payload: { ...w, data: this.withLinks(w, e, ep.id, id, linkKey.get(e.tenantId)) },
        });
      }
    }
    return out;
  }

  /** approval.requested carries the console page and, unless the tenant turned links off, a signed single-use decision URL. */
  private withLinks(w: WebhookEvent, e: LogEvent, endpointId: string, messageId: string, key: string | undefined): Record<string, unknown> {
    if (w.type !== 'approval.requested') return w.data;
    const base = this.o.publicUrl.replace(/\/+$/, '');
    const sessionId = String(w.data.sessionId);
    const console = `${base}/console/sessions/${encodeURIComponent(sessionId)}`;
    if (key === undefined) return { ...w.data, links: { console, decide: null } };
    const deadline = typeof w.data.deadlineAt === 'string' ? Date.parse(w.data.deadlineAt) : NaN;
    const expires = Number.isNaN(deadline) ? Date.parse(e.createdAt) + this.o.linkTtlMs : deadline;
    const token = signLink({ v: 1, t: e.tenantId, s: sessionId, a: String(w.data.approvalId), e: endpointId, m: messageId, x: expires }, key);
    return { ...w.data, links: { console, decide: `${base}/v1/approval-links/${token}`, expiresAt: new Date(expires).toISOString() } };
  }
}
