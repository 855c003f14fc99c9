import type { Job, Queue } from 'bullmq';
import Redis from 'ioredis';
import { watchRedis } from './redis-watch';

/**
 * Fair scheduling between tenants on one BullMQ queue, by start-time fair queueing over BullMQ's
 * job priorities (open-source BullMQ has no groups; see docs/adr/0013-fair-scheduling.md).
 *
 * Each queue keeps a virtual time `V` (the start tag of the latest job a worker took) and, per
 * tenant, the finish tag `F` of its latest job. A new job of tenant T gets the start tag
 * `S = max(V, F[T])` and `F[T] = S + 1`, and is added with priority `S + 1` (1 is served first).
 * So a tenant with 300 queued jobs holds tags V..V+299, while a tenant that arrives later gets
 * the tag V: its job is next. Within a tenant tags only grow, so its jobs keep their order; a
 * tenant idle for a while starts at V (no credit saved up). The cost is one script call when a
 * job is added and one when a worker takes it.
 */

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;
/** Past this virtual time the tags are reset the next time the queue is idle. */
const RESET_AFTER = 1_000_000;

// KEYS: V, the tenants' F hash. ARGV: tenant. Returns S.
const TAG_SCRIPT = `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
local f = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local s = math.max(v, f)
redis.call('HSET', KEYS[2], ARGV[1], s + 1)
return s`;

// KEYS: V. ARGV: a started job's tag. V only moves forward.
const START_SCRIPT = `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end
return v`;

/** The scripts as commands of our connection: sent by SHA (EVALSHA), the body only once. */
type FairRedis = Redis & {
  hubFairTag(v: string, tenants: string, tenantId: string): Promise<number>;
  hubFairStart(v: string, tag: string): Promise<number>;
};

export class FairShare {
  private readonly redis: FairRedis;

  /** `prefix`: the deployment's BullMQ prefix; the tags live beside each queue's keys. */
  constructor(
    redisUrl: string,
    private readonly prefix: string,
  ) {
    // Its own connection: BullMQ 6 keeps its Redis client behind a backend interface.
    const redis = watchRedis(new Redis(redisUrl, { maxRetriesPerRequest: null }));
    redis.defineCommand('hubFairTag', { numberOfKeys: 2, lua: TAG_SCRIPT });
    redis.defineCommand('hubFairStart', { numberOfKeys: 1, lua: START_SCRIPT });
    this.redis = redis as FairRedis;
  }

  private keys(queue: string): [string, string] {
    const base = `${this.prefix}:${queue}:fair`;
    return [`${base}:v`, `${base}:tenants`];
  }

  /** The priority of the next job of `tenantId` on `queue` (takes its tag). */
  async priorityFor(queue: string, tenantId: string): Promise<number> {
    const [v, tenants] = this.keys(queue);
    const s = Number(await this.redis.hubFairTag(v, tenants, tenantId));
    // Past 2^21 BullMQ cannot order by tag any more: such jobs share the last priority and run
    // in arrival order until the reset below brings the tags back to 0.
    return Math.min(s + 1, MAX_PRIORITY);
  }

  /** A worker took `job` from `queue`: the virtual time moves to its tag. */
  async started(queue: string, job: Job): Promise<void> {
    const priority = job.opts.priority ?? 0;
    if (priority <= 0) return;
    const [v] = this.keys(queue);
    await this.redis.hubFairStart(v, String(priority - 1));
  }

  /**
   * Resets the tags of `queue` once they have grown large and it holds nothing (waiting,
   * prioritized, delayed or active): then no job carries a tag to compare against.
   */
  async resetIfIdle(queue: Queue): Promise<boolean> {
    const [v, tenants] = this.keys(queue.name);
    if (Number((await this.redis.get(v)) ?? 0) < RESET_AFTER) return false;
    const counts = await queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'waiting-children');
    if (Object.values(counts).some((n) => n > 0)) return false;
    await this.redis.del(v, tenants);
    return true;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
