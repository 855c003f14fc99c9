import type { Pool } from 'pg';
import { A2aPushDispatcher, type PushDispatcherOptions } from './dispatcher';
import { A2aPushOutbox } from './outbox';

export interface A2aPushOptions extends PushDispatcherOptions {
  /** `HUB_WEBHOOK_POLL_MS`. */
  pollMs: number;
}

/**
 * What a worker runs for A2A push notifications, beside the webhook service and on its pattern:
 * the outbox (log to notifications) and the dispatcher (notifications to receivers), one look
 * every `pollMs`. Every worker runs it; the checkpoint's compare-and-set and the claims' locks
 * make that safe.
 */
export class A2aPushService {
  readonly outbox: A2aPushOutbox;
  readonly dispatcher: A2aPushDispatcher;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private looking: Promise<void> = Promise.resolve();

  constructor(
    pool: Pool,
    private readonly o: A2aPushOptions,
  ) {
    this.outbox = new A2aPushOutbox(pool);
    this.dispatcher = new A2aPushDispatcher(pool, o);
  }

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.looking;
    await this.dispatcher.drain();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.looking = this.look().finally(() => this.schedule());
    }, this.o.pollMs);
  }

  private async look(): Promise<void> {
    try {
      for (let i = 0; i < 10 && (await this.outbox.step()) > 0; i++);
      await this.dispatcher.look();
    } catch (e) {
      this.o.log('a2a push: look failed, trying again', e);
    }
  }
}
