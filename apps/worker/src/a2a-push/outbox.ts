import { A2A_PUSH_CONFIG_DELETED, A2A_PUSH_CONFIG_SET, sessionIdOf, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { asSystem, beginAs, EventStore, systemScope } from '@hub/event-store';
import { readBatch } from '@hub/projections';
import {
  a2aPushStreamId,
  encode,
  foldPushConfigs,
  foldTask,
  pushAuthHeaders,
  taskFrame,
  taskIdOf,
  type PushConfig,
  type TaskRef,
  type TaskView,
} from '@hub/protocol-a2a';
import { newMessageId } from '@hub/webhooks';
import type { Pool } from 'pg';

/** The push outbox's row in `webhook_checkpoints` (beside the webhook outbox's own). */
export const A2A_PUSH_CHECKPOINT = 'a2a-push';

/** A notification to deliver: one frame of one event, for one config. */
export interface PushMessage {
  id: string;
  tenant_id: string;
  task_id: string;
  config_id: string;
  event_position: number;
  frame: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface PushFact {
  tenant_id: string;
  stream_id: string;
  type: string;
  data: unknown;
  globalPosition: number;
}

/**
 * The A2A push outbox (ADR 0036, amendment): the webhook outbox's pattern for a second kind of
 * message. It reads settled events after its checkpoint (a prefix of the log), and for each
 * event of a task that has push configs (facts on the session's `a2a-push-` stream, as of that
 * event) writes the event's A2A `StreamResponse`s (the same `encode` as the SSE stream), one row
 * per config and frame, with the new checkpoint in one transaction, compare-and-set. A config
 * set on a task that exists gets the `Task` as it stands first. A crash neither loses a
 * notification nor invents one; any number of workers may step at once.
 */
export class A2aPushOutbox {
  private readonly store: EventStore;
  private ensured = false;

  constructor(
    private readonly pool: Pool,
    private readonly batchSize = 500,
  ) {
    this.store = new EventStore(pool, { groupCommit: false });
  }

  /** One batch; how many log events it consumed (0: caught up, or another process got there). */
  async step(): Promise<number> {
    const from = await this.checkpoint();
    const { events } = await readBatch(this.pool, from, this.batchSize, []);
    if (events.length === 0) return 0;
    const to = events[events.length - 1].globalPosition;
    const sessions = new Map<string, { tenantId: string; sessionId: string }>();
    for (const e of events) {
      const sessionId = sessionIdOf(e.streamId) ?? (e.streamId.startsWith(a2aPushStreamId('')) ? e.streamId.slice(a2aPushStreamId('').length) : null);
      if (sessionId) sessions.set(`${e.tenantId}\n${sessionId}`, { tenantId: e.tenantId, sessionId });
    }
    const messages = await this.messagesOf([...sessions.values()], from, to);
    const client = await this.pool.connect();
    try {
      await beginAs(client, systemScope('webhooks'));
      const moved = await client.query('UPDATE webhook_checkpoints SET position = $2, updated_at = now() WHERE name = $1 AND position = $3', [
        A2A_PUSH_CHECKPOINT,
        to,
        from,
      ]);
      if (moved.rowCount !== 1) {
        await client.query('ROLLBACK');
        return 0;
      }
      if (messages.length > 0) {
        await client.query(
          `INSERT INTO a2a_push_messages (id, tenant_id, task_id, config_id, event_position, frame, url, headers, body, status, next_attempt_at)
           SELECT m.id, m.tenant_id, m.task_id, m.config_id, m.event_position, m.frame, m.url, m.headers, m.body, 'pending', now()
             FROM jsonb_to_recordset($1::jsonb) AS m(id text, tenant_id uuid, task_id text, config_id text, event_position bigint, frame int, url text, headers jsonb, body text)
           ON CONFLICT (tenant_id, task_id, config_id, event_position, frame) DO NOTHING`,
          [JSON.stringify(messages)],
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

  /** Where the outbox stands; a new one starts at the log's head (configs made before it get nothing old). */
  async checkpoint(): Promise<number> {
    const db = asSystem(this.pool, 'webhooks');
    if (!this.ensured) {
      await db.query(
        `INSERT INTO webhook_checkpoints (name, position) SELECT $1, COALESCE((SELECT max(global_position) FROM events), 0) ON CONFLICT (name) DO NOTHING`,
        [A2A_PUSH_CHECKPOINT],
      );
      this.ensured = true;
    }
    const { rows } = await db.query<{ position: string }>('SELECT position::text AS position FROM webhook_checkpoints WHERE name = $1', [A2A_PUSH_CHECKPOINT]);
    return Number(rows[0].position);
  }

  /** The notifications of the batch `(from, to]`: only sessions with a push config are read whole. */
  private async messagesOf(sessions: readonly { tenantId: string; sessionId: string }[], from: number, to: number): Promise<PushMessage[]> {
    if (sessions.length === 0) return [];
    const facts = await this.pushFacts(sessions, to);
    const out: PushMessage[] = [];
    for (const s of sessions) {
      const push = facts.filter((f) => f.tenant_id === s.tenantId && f.stream_id === a2aPushStreamId(s.sessionId));
      if (push.length === 0) continue;
      const { events } = await this.store.readStream<HubEvent>(s.tenantId, sessionStreamId(s.sessionId));
      const session = (events as Recorded<HubEvent>[]).filter((e) => e.globalPosition <= to);
      out.push(...messagesOfSession(s.tenantId, s.sessionId, session, push, from));
    }
    return out;
  }

  /** Every config fact (up to `to`) of the batch's sessions, in one system read. */
  private async pushFacts(sessions: readonly { tenantId: string; sessionId: string }[], to: number): Promise<PushFact[]> {
    const { rows } = await asSystem(this.pool, 'webhooks').query<{ tenant_id: string; stream_id: string; type: string; data: unknown; p: string }>(
      `SELECT e.tenant_id, e.stream_id, e.type, e.data, e.global_position::text AS p
         FROM events e JOIN unnest($1::uuid[], $2::text[]) AS s(tenant_id, stream_id) ON e.tenant_id = s.tenant_id AND e.stream_id = s.stream_id
        WHERE e.global_position <= $3 AND e.type = ANY($4) ORDER BY e.global_position`,
      [sessions.map((s) => s.tenantId), sessions.map((s) => a2aPushStreamId(s.sessionId)), to, [A2A_PUSH_CONFIG_SET, A2A_PUSH_CONFIG_DELETED]],
    );
    return rows.map((r) => ({ tenant_id: r.tenant_id, stream_id: r.stream_id, type: r.type, data: r.data, globalPosition: Number(r.p) }));
  }
}

/**
 * One session's notifications for the events in `(from, ...]` (pure): a config's own fact
 * sends the task as it stands; each later event of a task sends its frames to the task's configs
 * live at that event.
 */
export function messagesOfSession(
  tenantId: string,
  sessionId: string,
  session: readonly Recorded<HubEvent>[],
  push: readonly PushFact[],
  from: number,
): PushMessage[] {
  const out: PushMessage[] = [];
  const views = new Map<string, TaskView>();
  const add = (c: PushConfig, ref: TaskRef, position: number, frames: readonly unknown[]) =>
    frames.forEach((frame, i) =>
      out.push({
        id: newMessageId(),
        tenant_id: tenantId,
        task_id: taskIdOf(ref),
        config_id: c.configId,
        event_position: position,
        frame: i,
        url: c.url,
        headers: pushAuthHeaders(c),
        body: JSON.stringify(frame),
      }),
    );
  const timeline = [
    ...session.filter((e) => e.globalPosition > from).map((e) => ({ kind: 'event' as const, e })),
    ...push.filter((f) => f.globalPosition > from).map((f) => ({ kind: 'fact' as const, f })),
  ].sort((a, b) => (a.kind === 'event' ? a.e.globalPosition : a.f.globalPosition) - (b.kind === 'event' ? b.e.globalPosition : b.f.globalPosition));
  for (const item of timeline) {
    if (item.kind === 'fact') {
      if (item.f.type !== A2A_PUSH_CONFIG_SET) continue;
      const p = item.f.globalPosition;
      const c = foldPushConfigs(push, p);
      const set = [...c.values()].flat().find((x) => x.configId === (item.f.data as PushConfig).configId && x.turnId === (item.f.data as PushConfig).turnId);
      if (!set) continue;
      const ref = { sessionId, turnId: set.turnId };
      const first = taskFrame(foldTask(session, ref, p));
      if (first) add(set, ref, p, [first]);
      continue;
    }
    const e = item.e;
    const turnId = 'turnId' in e.data ? e.data.turnId : null;
    if (typeof turnId !== 'string') continue;
    const configs = foldPushConfigs(push, e.globalPosition).get(turnId) ?? [];
    if (configs.length === 0) {
      views.delete(turnId);
      continue;
    }
    const ref = { sessionId, turnId };
    const view = views.get(turnId) ?? foldTask(session, ref, e.globalPosition - 1);
    const encoded = encode(e, view);
    views.set(turnId, encoded.view);
    for (const c of configs) add(c, ref, e.globalPosition, encoded.frames);
  }
  return out;
}
