import { asSystem } from '@hub/event-store';
import { observeGauge, oncePerScrape } from '@hub/telemetry';
import type { Pool } from 'pg';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher';
import { WebhookOutbox, type OutboxOptions } from './outbox';

export interface WebhookServiceOptions extends OutboxOptions, DispatcherOptions {
  /** How often the outbox and the dispatcher look for work (`HUB_WEBHOOK_POLL_MS`). */
  pollMs: number;
}

/**
 * What a worker runs for webhooks: the outbox (log to messages) and the dispatcher (messages to
 * endpoints), one look every `pollMs`. Every worker runs it; the outbox's checkpoint and the
 * dispatcher's claims make that safe.
 */
export class WebhookService {
  readonly outbox: WebhookOutbox;
  readonly dispatcher: WebhookDispatcher;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private looking: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly o: WebhookServiceOptions,
  ) {
    this.outbox = new WebhookOutbox(pool, o);
    // An endpoint free again is looked at now, not at the next poll: its backlog drains at the
    // pace it answers, `perEndpoint` at a time.
    this.dispatcher = new WebhookDispatcher(pool, { ...o, onFree: () => this.wake() });
  }

  start(): void {
    observeGauge(
      'hub.webhook.queue.depth',
      'Webhook messages waiting to be delivered, per endpoint',
      oncePerScrape(() => this.depth()),
    );
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.looking;
    await this.dispatcher.drain();
  }

  private running = false;
  private dirty = false;

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.run(), this.o.pollMs);
  }

  /** A look now (or right after the one running). */
  private wake(): void {
    if (this.stopped) return;
    if (this.running) return void (this.dirty = true);
    clearTimeout(this.timer);
    this.run();
  }

  private run(): void {
    this.running = true;
    this.looking = this.look().finally(() => {
      this.running = false;
      if (this.dirty && !this.stopped) {
        this.dirty = false;
        return this.run();
      }
      this.schedule();
    });
  }

  private async look(): Promise<void> {
    try {
      // Caught up on the log first (bounded, so delivering is never starved), then deliver.
      for (let i = 0; i < 10 && (await this.outbox.step()) > 0; i++);
      await this.dispatcher.look();
    } catch (e) {
      this.o.log('webhooks: look failed, trying again', e);
    }
  }

  private async depth(): Promise<{ value: number; attributes: Record<string, string> }[]> {
    const { rows } = await asSystem(this.pool, 'webhooks').query<{ endpoint_id: string; tenant_id: string; n: number }>(
      `SELECT endpoint_id, tenant_id, count(*)::int AS n FROM webhook_messages WHERE status = 'pending' GROUP BY endpoint_id, tenant_id`,
    );
    return rows.map((r) => ({ value: r.n, attributes: { endpoint: r.endpoint_id, tenant: r.tenant_id } }));
  }
}
