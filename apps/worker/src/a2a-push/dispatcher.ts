import { asSystem } from '@hub/event-store';
import { withSpan } from '@hub/telemetry';
import { nextDelay, type AddressGuard, type AttemptResult } from '@hub/webhooks';
import type { Pool } from 'pg';
import { postNotification } from './send';

export interface PushDispatcherOptions {
  /** Delays after each failed attempt, ms (`HUB_WEBHOOK_RETRY_SCHEDULE`). */
  schedule: readonly number[];
  /** `HUB_WEBHOOK_TIMEOUT_MS`. */
  timeoutMs: number;
  guard: AddressGuard;
  claimLimit?: number;
  log: (message: string, error?: unknown) => void;
}

interface Claimed {
  id: string;
  tenant_id: string;
  task_id: string;
  config_id: string;
  attempts: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const LEASE_MARGIN_MS = 5_000;

// Per config, only its oldest pending notification may be claimed, and only when it is due and
// not leased: a task's updates reach a receiver in the order of the log, one at a time, and a
// failing one holds the ones after it until it succeeds or its retries are spent. Leased, so a
// process that dies mid-attempt leaves the notification to another (at least once).
// Named: each connection plans it once (it runs at every look).
const CLAIM = {
  name: 'hub_a2a_push_claim',
  text: `
WITH heads AS (
  SELECT DISTINCT ON (tenant_id, task_id, config_id) id
    FROM a2a_push_messages WHERE status = 'pending'
   ORDER BY tenant_id, task_id, config_id, event_position, frame),
due AS (
  SELECT m.id FROM a2a_push_messages m
   WHERE m.id IN (SELECT id FROM heads) AND m.next_attempt_at <= now() AND (m.leased_until IS NULL OR m.leased_until < now())
   LIMIT $1 FOR UPDATE SKIP LOCKED)
UPDATE a2a_push_messages m SET leased_until = now() + $2::double precision * interval '1 millisecond', attempts = m.attempts + 1
  FROM due WHERE m.id = due.id
RETURNING m.id, m.tenant_id, m.task_id, m.config_id, m.attempts, m.url, m.headers, m.body`,
};

// Only the lease holder's attempt counts ($2 = attempts).
const RECORD = `
UPDATE a2a_push_messages SET status = $3, next_attempt_at = $4, leased_until = NULL, last_status = $5, last_error = $6
 WHERE id = $1 AND attempts = $2`;

/**
 * Delivers the push outbox's notifications: each look claims the due head of every config and
 * runs each attempt on its own (never awaited by the look), holding no connection while the
 * receiver answers. A failure is retried on the webhook schedule (jitter, `Retry-After`); a
 * refused address, a 410 or spent retries end the notification as `failed`.
 */
export class A2aPushDispatcher {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly o: PushDispatcherOptions,
  ) {}

  async look(): Promise<number> {
    const { rows } = await asSystem(this.pool, 'webhooks').query<Claimed>(CLAIM, [this.o.claimLimit ?? 100, this.o.timeoutMs + LEASE_MARGIN_MS]);
    for (const m of rows) {
      const p = this.attempt(m)
        .catch((e: unknown) => this.o.log(`a2a push: attempt of ${m.id} not recorded (its lease ends and it is tried again)`, e))
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
    return rows.length;
  }

  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async attempt(m: Claimed): Promise<void> {
    const attrs = {
      'hub.tenant_id': m.tenant_id,
      'a2a.task_id': m.task_id,
      'a2a.push_config_id': m.config_id,
      'webhook.message_id': m.id,
      'webhook.attempt': m.attempts,
    };
    const r = await withSpan('a2a.push.attempt', attrs, async (span) => {
      const result = await postNotification({ url: m.url, id: m.id, body: m.body, headers: m.headers, timeoutMs: this.o.timeoutMs, guard: this.o.guard });
      span.setAttributes({ 'webhook.outcome': result.outcome, 'http.response.status_code': result.status ?? 0 });
      return result;
    });
    await this.record(m, r);
  }

  private async record(m: Claimed, r: AttemptResult): Promise<void> {
    const final = r.outcome === 'succeeded' || r.outcome === 'gone' || r.outcome === 'refused';
    const delay = final ? null : nextDelay(this.o.schedule, m.attempts, r.retryAfterMs);
    const status = r.outcome === 'succeeded' ? 'succeeded' : delay === null ? 'failed' : 'pending';
    const next = delay === null ? null : new Date(Date.now() + delay);
    if (status === 'failed')
      this.o.log(`a2a push: ${m.id} of task ${m.task_id} (config ${m.config_id}) not delivered after ${m.attempts} attempt(s): ${r.error ?? r.outcome}`);
    await asSystem(this.pool, 'webhooks').query(RECORD, [m.id, m.attempts, status, next, r.status, r.error?.slice(0, 1000) ?? null]);
  }
}
