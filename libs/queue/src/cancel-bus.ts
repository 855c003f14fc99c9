import Redis from 'ioredis';

/**
 * Tells whichever worker runs a turn to stop it now. The log already says the turn is
 * cancelled (the command appended `TurnCancelled`); this only makes the stop prompt instead of
 * waiting for the runner's next append to conflict.
 */
export class CancelBus {
  private readonly pub: Redis;
  private sub?: Redis;
  private readonly channel: string;

  constructor(
    private readonly redisUrl: string,
    prefix: string,
  ) {
    this.pub = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    this.channel = `${prefix}:turn-cancel`;
  }

  async publish(tenantId: string, turnId: string): Promise<void> {
    await this.pub.publish(this.channel, JSON.stringify({ tenantId, turnId }));
  }

  async listen(onCancel: (tenantId: string, turnId: string) => void): Promise<void> {
    this.sub = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    this.sub.on('message', (_ch: string, msg: string) => {
      const parsed = safeParse(msg);
      if (parsed) onCancel(parsed.tenantId, parsed.turnId);
    });
    await this.sub.subscribe(this.channel);
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
    await this.pub.quit();
  }
}

function safeParse(msg: string): { tenantId: string; turnId: string } | null {
  try {
    const v = JSON.parse(msg) as { tenantId?: unknown; turnId?: unknown };
    return typeof v.tenantId === 'string' && typeof v.turnId === 'string' ? { tenantId: v.tenantId, turnId: v.turnId } : null;
  } catch {
    return null; // a foreign message on our channel: not ours to act on
  }
}
