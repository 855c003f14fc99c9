import { randomUUID } from 'node:crypto';
import { asSystem } from '@hub/event-store';
import type { Pool } from 'pg';
import type { AddressGuard } from './address-guard';
import { webhookMetrics, withSpan } from '@hub/telemetry';
import { nextDelay } from './schedule';
import { sendSigned, type AttemptResult } from './send';
import { liveSecrets, type SigningSecret } from './signing';

export interface DispatcherOptions {
  /** Delays after each failed attempt, ms (`HUB_WEBHOOK_RETRY_SCHEDULE`). */
  schedule: readonly number[];
  /** An attempt's whole answer must come within this (`HUB_WEBHOOK_TIMEOUT_MS`). */
  timeoutMs: number;
  guard: AddressGuard;
  /** Attempts one process makes to one endpoint at once. */
  perEndpoint: number;
  /** Messages claimed per look, over every endpoint. */
  claimLimit?: number;
  /** An endpoint failing without a success for this long is disabled (`HUB_WEBHOOK_DISABLE_AFTER_MS`). */
  disableAfterMs: number;
  log: (message: string, error?: unknown) => void;
  /** Called when an endpoint's last attempt in flight here ends: its next messages may be claimed now. */
  onFree?: () => void;
}

interface Claimed {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  attempts: number;
  body: string;
  url: string;
  secrets: SigningSecret[];
  event_type: string;
}

/** A claim lasts the attempt's timeout and this much more; after it (the process died) another process takes the message. */
const LEASE_MARGIN_MS = 5_000;

// Due messages, at most `per` of each endpoint this process is not already calling, oldest first;
// locked while claimed (SKIP LOCKED: processes claim disjoint sets) and leased, so a message
// whose process dies is claimed again once its lease ends: at least once.
// Named: each connection plans it once (it runs at every look, and planning it cost more than running it).
const CLAIM = {
  name: 'hub_webhook_claim',
  text: `
WITH ranked AS (
  SELECT m.id, row_number() OVER (PARTITION BY m.endpoint_id ORDER BY m.next_attempt_at, m.id) AS n
    FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
   WHERE m.status = 'pending' AND m.next_attempt_at <= now() AND (m.leased_until IS NULL OR m.leased_until < now())
     AND e.enabled AND NOT (m.endpoint_id = ANY($1::uuid[]))),
due AS (
  SELECT m.id FROM webhook_messages m
   WHERE m.id IN (SELECT id FROM ranked WHERE n <= $2) AND m.status = 'pending' AND (m.leased_until IS NULL OR m.leased_until < now())
   LIMIT $3 FOR UPDATE SKIP LOCKED)
UPDATE webhook_messages m SET leased_until = now() + $4::double precision * interval '1 millisecond', attempts = m.attempts + 1
  FROM due, webhook_endpoints e
 WHERE m.id = due.id AND e.id = m.endpoint_id
RETURNING m.id, m.tenant_id, m.endpoint_id, m.attempts, m.payload::text AS body, m.event_type, e.url, e.secrets`,
};

// What an attempt did, in one statement: the attempt's row, the message's state, the endpoint's
// failing streak (or its disabling). Only the lease holder's attempt counts ($2 = attempts).
const RECORD = `
WITH msg AS (
  UPDATE webhook_messages SET status = $3, next_attempt_at = $4, leased_until = NULL
   WHERE id = $1 AND attempts = $2 RETURNING id, tenant_id, endpoint_id),
att AS (
  INSERT INTO webhook_attempts (id, tenant_id, endpoint_id, message_id, attempt, started_at, latency_ms, response_status, outcome, error, next_attempt_at)
  SELECT $5, tenant_id, endpoint_id, id, $2, $6, $7, $8, $9, $10, $4 FROM msg RETURNING endpoint_id)
UPDATE webhook_endpoints e SET
   failing_since = CASE WHEN $9 = 'succeeded' THEN NULL ELSE COALESCE(e.failing_since, now()) END,
   enabled = CASE WHEN $11::text IS NOT NULL OR ($9 <> 'succeeded' AND e.failing_since < now() - $12::double precision * interval '1 millisecond') THEN false ELSE e.enabled END,
   disabled_reason = CASE
     WHEN $11::text IS NOT NULL THEN $11
     WHEN $9 <> 'succeeded' AND e.failing_since < now() - $12::double precision * interval '1 millisecond' THEN 'failing since ' || to_char(e.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' without a success'
     ELSE e.disabled_reason END,
   updated_at = CASE WHEN $11::text IS NOT NULL THEN now() ELSE e.updated_at END
  FROM att WHERE e.id = att.endpoint_id`;

/**
 * Delivers the outbox's messages. Each look claims due messages of endpoints this process is not
 * calling now, and runs each attempt on its own (never awaited by the look): a slow or dead
 * endpoint holds only its own attempts, up to its timeout, never another endpoint's. Every
 * attempt is recorded (the delivery log); a failure is retried on the schedule, with jitter and
 * the endpoint's `Retry-After`; 410 disables the endpoint, and so does failing for too long.
 */
export class WebhookDispatcher {
  private readonly busy = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly o: DispatcherOptions,
  ) {}

  /** Attempts running now. */
  get running(): number {
    return this.inFlight.size;
  }

  /** Claims what is due and starts its attempts; resolves once they are started (not finished). */
  async look(): Promise<number> {
    const busy = [...this.busy.keys()];
    const { rows } = await asSystem(this.pool, 'webhooks').query<Claimed>(CLAIM, [
      busy,
      this.o.perEndpoint,
      this.o.claimLimit ?? 100,
      this.o.timeoutMs + LEASE_MARGIN_MS,
    ]);
    for (const m of rows) {
      this.busy.set(m.endpoint_id, (this.busy.get(m.endpoint_id) ?? 0) + 1);
      const p = this.attempt(m)
        .catch((e: unknown) => this.o.log(`webhooks: attempt of ${m.id} not recorded (its lease ends and it is tried again)`, e))
        .finally(() => {
          this.inFlight.delete(p);
          const n = (this.busy.get(m.endpoint_id) ?? 1) - 1;
          if (n > 0) return void this.busy.set(m.endpoint_id, n);
          this.busy.delete(m.endpoint_id);
          this.o.onFree?.();
        });
      this.inFlight.add(p);
    }
    return rows.length;
  }

  /** Waits for the attempts running now. */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async attempt(m: Claimed): Promise<void> {
    const startedAt = new Date();
    const attrs = {
      'hub.tenant_id': m.tenant_id,
      'webhook.endpoint_id': m.endpoint_id,
      'webhook.message_id': m.id,
      'webhook.attempt': m.attempts,
      'webhook.event_type': m.event_type,
    };
    const result = await withSpan('webhook.attempt', attrs, async (span) => {
      const r = await sendSigned({
        url: m.url,
        id: m.id,
        body: m.body,
        secrets: liveSecrets(m.secrets, startedAt).map((s) => s.secret),
        timeoutMs: this.o.timeoutMs,
        guard: this.o.guard,
        at: startedAt,
      });
      span.setAttributes({ 'webhook.outcome': r.outcome, 'http.response.status_code': r.status ?? 0 });
      return r;
    });
    webhookMetrics().attempts.add(1, { outcome: result.outcome });
    webhookMetrics().attemptDuration.record(result.latencyMs / 1000, { outcome: result.outcome });
    await this.record(m, startedAt, result);
  }

  private async record(m: Claimed, startedAt: Date, r: AttemptResult): Promise<void> {
    const delay = r.outcome === 'succeeded' || r.outcome === 'gone' ? null : nextDelay(this.o.schedule, m.attempts, r.retryAfterMs);
    const status = r.outcome === 'succeeded' ? 'succeeded' : delay === null ? 'failed' : 'pending';
    const next = delay === null ? null : new Date(Date.now() + delay);
    const disable = r.outcome === 'gone' ? `the endpoint answered 410 Gone at ${startedAt.toISOString()}` : null;
    await asSystem(this.pool, 'webhooks').query(RECORD, [
      m.id,
      m.attempts,
      status,
      next,
      randomUUID(),
      startedAt,
      r.latencyMs,
      r.status,
      r.outcome,
      r.error?.slice(0, 1000) ?? null,
      disable,
      this.o.disableAfterMs,
    ]);
    if (status !== 'pending') webhookMetrics().messages.add(1, { outcome: status });
  }
}
