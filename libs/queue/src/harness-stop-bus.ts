import Redis from 'ioredis';

/**
 * Tells every worker to stop the wrapped-harness process of a session (an OpenEnv episode was
 * reset, so its conversation is over). Harness processes live in whichever worker ran the
 * session's turns; ingress does not know which, so it broadcasts. A worker that holds none
 * ignores it; a process nobody stops is reaped after `session_timeout_s` idle anyway.
 */
export class HarnessStopBus {
  private readonly pub: Redis;
  private sub?: Redis;
  private readonly channel: string;

  constructor(
    private readonly redisUrl: string,
    prefix: string,
  ) {
    this.pub = new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: true });
    this.channel = `${prefix}:harness-stop`;
  }

  async publish(tenantId: string, sessionId: string): Promise<void> {
    await this.pub.publish(this.channel, JSON.stringify({ tenantId, sessionId }));
  }

  async listen(onStop: (tenantId: string, sessionId: string) => void): Promise<void> {
    this.sub = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    this.sub.on('message', (_ch: string, msg: string) => {
      const parsed = parseStop(msg);
      if (parsed) onStop(parsed.tenantId, parsed.sessionId);
    });
    await this.sub.subscribe(this.channel);
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
    if (this.pub.status === 'wait') this.pub.disconnect();
    else await this.pub.quit();
  }
}

function parseStop(msg: string): { tenantId: string; sessionId: string } | null {
  try {
    const v = JSON.parse(msg) as { tenantId?: unknown; sessionId?: unknown };
    return typeof v.tenantId === 'string' && typeof v.sessionId === 'string' ? { tenantId: v.tenantId, sessionId: v.sessionId } : null;
  } catch {
    return null; // a foreign message on our channel: not ours to act on
  }
}
