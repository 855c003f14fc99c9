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

  /**
   * The first reply to `requestId`, or `'mismatch'` when it was the reply to a request of other
   * content (`fingerprint`): a reused id must be refused, not answered with another request's
   * reply (issue 11, defect 9).
   */
  async get(tenantId: string, requestId: string, fingerprint: string): Promise<WireReply | 'mismatch' | null> {
    const raw = await this.redis.get(this.key(tenantId, requestId));
    if (raw === null) return null;
    const kept = JSON.parse(raw) as { reply: WireReply; fingerprint: string };
    return kept.fingerprint === fingerprint ? kept.reply : 'mismatch';
  }

  /** Stores `reply` unless a reply is already stored (a concurrent repeat); returns the stored one. */
  async keepFirst(tenantId: string, requestId: string, fingerprint: string, reply: WireReply): Promise<WireReply | 'mismatch'> {
    const key = this.key(tenantId, requestId);
    const stored = await this.redis.set(key, JSON.stringify({ reply, fingerprint }), 'EX', this.ttlSeconds, 'NX');
    if (stored === 'OK') return reply;
    return (await this.get(tenantId, requestId, fingerprint)) ?? reply;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }

  private key(tenantId: string, requestId: string): string {
    // v2: entries carry the request's fingerprint (v1 entries, without it, are simply not read).
    return `${this.prefix}:openharness:reply2:${tenantId}:${requestId}`;
  }
}
