import { watchRedis } from './redis-watch';
import Redis from 'ioredis';

/**
 * A broadcast of `(tenant, id)` signals to every process listening on one Redis channel: for
 * nudges whose truth is already in the log (a cancelled turn, a reset episode), sent to whichever
 * process happens to hold the thing. A message lost to a reconnect costs only promptness, so
 * plain pub/sub suffices. The wire message is `{"tenantId": ..., "<field>": ...}`.
 */
export class SignalBus {
  private readonly pub: Redis;
  private sub?: Redis;

  constructor(
    private readonly redisUrl: string,
    private readonly channel: string,
    private readonly field: string,
  ) {
    // Lazy: a process that only listens (or never signals) opens no publishing connection.
    this.pub = watchRedis(new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: true }));
  }

  async publish(tenantId: string, id: string): Promise<void> {
    await this.pub.publish(this.channel, JSON.stringify({ tenantId, [this.field]: id }));
  }

  async listen(on: (tenantId: string, id: string) => void): Promise<void> {
    this.sub = watchRedis(new Redis(this.redisUrl, { maxRetriesPerRequest: null }));
    this.sub.on('message', (_ch: string, msg: string) => {
      const parsed = this.parse(msg);
      if (parsed) on(parsed.tenantId, parsed.id);
    });
    await this.sub.subscribe(this.channel);
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
    if (this.pub.status === 'wait') this.pub.disconnect();
    else await this.pub.quit();
  }

  private parse(msg: string): { tenantId: string; id: string } | null {
    try {
      const v = JSON.parse(msg) as Record<string, unknown>;
      const id = v[this.field];
      return typeof v.tenantId === 'string' && typeof id === 'string' ? { tenantId: v.tenantId, id } : null;
    } catch {
      return null; // a foreign message on our channel: not ours to act on
    }
  }
}

/**
 * Tells whichever worker runs a turn to stop it now. The log already says the turn is
 * cancelled (the command appended `TurnCancelled`); this only makes the stop prompt instead of
 * waiting for the runner's next append to conflict.
 */
export class CancelBus extends SignalBus {
  constructor(redisUrl: string, prefix: string) {
    super(redisUrl, `${prefix}:turn-cancel`, 'turnId');
  }
}

/**
 * Tells every worker to stop the wrapped-harness process of a session (an OpenEnv episode was
 * reset, so its conversation is over). Harness processes live in whichever worker ran the
 * session's turns; ingress does not know which, so it broadcasts. A worker that holds none
 * ignores it; a process nobody stops is reaped after `session_timeout_s` idle anyway.
 */
export class HarnessStopBus extends SignalBus {
  constructor(redisUrl: string, prefix: string) {
    super(redisUrl, `${prefix}:harness-stop`, 'sessionId');
  }
}
