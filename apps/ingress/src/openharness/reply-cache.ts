import { watchRedis } from '@hub/queue';
import Redis from 'ioredis';
import type { WireReply } from '@hub/protocol-openharness';

/**
 * The first reply to each `request_id`, per tenant, in Redis with a TTL — so a repeat gets
 * exactly the first reply (its continuation tokens and latency included), which a rebuild from
 * the log could not give once the turn has moved on. Every ingress instance shares it.
 */
export class ReplyCache {
  private readonly redis: Redis;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly ttlSeconds = 24 * 60 * 60,
  ) {
    this.redis = watchRedis(new Redis(redisUrl, { maxRetriesPerRequest: 2 }));
  }

  async get(tenantId: string, requestId: string): Promise<WireReply | null> {
    const raw = await this.redis.get(this.key(tenantId, requestId));
    return raw === null ? null : (JSON.parse(raw) as WireReply);
  }

  /** Stores `reply` unless a reply is already stored (a concurrent repeat); returns the stored one. */
  async keepFirst(tenantId: string, requestId: string, reply: WireReply): Promise<WireReply> {
    const key = this.key(tenantId, requestId);
    const stored = await this.redis.set(key, JSON.stringify(reply), 'EX', this.ttlSeconds, 'NX');
    if (stored === 'OK') return reply;
    return (await this.get(tenantId, requestId)) ?? reply;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }

  private key(tenantId: string, requestId: string): string {
    return `${this.prefix}:openharness:reply:${tenantId}:${requestId}`;
  }
}
