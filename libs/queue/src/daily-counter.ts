import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { watchRedis } from './redis-watch';

/** A day, the window a daily limit is counted over. */
const DAY_S = 24 * 60 * 60;

export interface DailyCounterOptions {
  /** How long counts gather before one write per tenant (default 250 ms). */
  flushMs?: number;
  /** A flush that failed (Redis away): those amounts are not counted. */
  onError?: (e: Error) => void;
}

/**
 * An amount each tenant used in its current 24-hour window (which starts with the window's first
 * count), kept in Redis by rate-limiter-flexible: whoever does the work adds to it, ingress reads
 * it before taking a turn. Shared by every process, kept over restarts. A counter, not a gate:
 * the cap is each tenant's limit, compared by whoever reads it.
 *
 * Work must not wait for Redis, and it comes in many small pieces (a streamed turn's appends,
 * each model call), so `count` gathers amounts in memory and they go out once per `flushMs` per
 * tenant: a process killed with -9 loses at most that much counting, never work.
 */
export class DailyCounter {
  private readonly redis: Redis;
  private readonly counter: RateLimiterRedis;
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;
  private readonly onError: (e: Error) => void;

  /** `name` keeps counters apart (`tokens-day`, `event-bytes-day`) under the deployment's prefix. */
  constructor(redisUrl: string, prefix: string, name: string, opts: DailyCounterOptions = {}) {
    // A flush waits on Redis: with Redis gone it fails after one retry rather than hanging.
    this.redis = watchRedis(new Redis(redisUrl, { maxRetriesPerRequest: 1 }));
    this.counter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${prefix}:limits:${name}`, points: Number.MAX_SAFE_INTEGER, duration: DAY_S });
    this.flushMs = opts.flushMs ?? 250;
    this.onError = opts.onError ?? (() => undefined);
  }

  /** Adds `amount` to the tenant's day now, waiting for Redis. */
  async add(tenantId: string, amount: number): Promise<void> {
    if (amount > 0) await this.counter.consume(tenantId, Math.ceil(amount));
  }

  /** Adds `amount` to the tenant's day, soon; never throws and never waits. */
  count(tenantId: string, amount: number): void {
    if (!(amount > 0)) return;
    this.pending.set(tenantId, (this.pending.get(tenantId) ?? 0) + amount);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what gathered so far. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending];
    this.pending.clear();
    await Promise.all(
      batch.map(([tenantId, amount]) => this.add(tenantId, amount).catch((e: unknown) => this.onError(e instanceof Error ? e : new Error(String(e))))),
    );
  }

  /** The tenant's amount in its current window, and how long until the window ends. */
  async used(tenantId: string): Promise<{ amount: number; resetsInMs: number }> {
    const res = await this.counter.get(tenantId);
    return res ? { amount: res.consumedPoints, resetsInMs: res.msBeforeNext } : { amount: 0, resetsInMs: 0 };
  }

  /** Writes what gathered, then closes the connection. */
  async close(): Promise<void> {
    await this.flush();
    // A client still trying to connect would hold QUIT until it gives up: just drop it.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

/** Model tokens per tenant and day (`tokensPerDay`): the workers count each model call's tokens. */
export class DailyTokens extends DailyCounter {
  constructor(redisUrl: string, prefix: string, opts: DailyCounterOptions = {}) {
    super(redisUrl, prefix, 'tokens-day', opts);
  }
}

/** Bytes each tenant's log grew by per day (`eventBytesPerDay`), counted where events are appended (`EventStore`'s `onAppended`). */
export class DailyEventBytes extends DailyCounter {
  constructor(redisUrl: string, prefix: string, opts: DailyCounterOptions = {}) {
    super(redisUrl, prefix, 'event-bytes-day', opts);
  }
}
