import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { watchRedis } from '@hub/queue';

/** One open socket's place in its tenant's count. */
export interface SocketLease {
  readonly tenantId: string;
  readonly member: string;
}

export type Admission = { admitted: true; lease: SocketLease } | { admitted: false; open: number };

export interface SocketLeasesOptions {
  redisUrl: string;
  /** The deployment's queue prefix: the counts live beside its other Redis keys. */
  prefix: string;
  /** How long a lease lasts unless renewed: a dead ingress's sockets stop counting within this. */
  leaseMs: number;
  /** A renewal or release that failed (Redis away); the lease runs out by itself. */
  onError?: (e: Error) => void;
}

// Redis's own clock, so every ingress agrees on when a lease runs out whatever its own says.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: the tenant's lease set. ARGV: limit (0: none), lease ms, member. Returns {admitted, open}.
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[1])
if limit > 0 and n >= limit then return {0, n} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return {1, n + 1}`;

// KEYS: the tenant's lease set. ARGV: lease ms, members... Every member's lease runs from now.
const RENEW = `${NOW}
local expiry = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return #ARGV - 1`;

const OPEN = `${NOW} return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

/** The scripts as commands of our connection: sent by SHA (EVALSHA), the body only once (as fair-share.ts does). */
type LeaseRedis = Redis & {
  hubLeaseAcquire(key: string, limit: string, leaseMs: string, member: string): Promise<[number, number]>;
  hubLeaseRenew(key: string, leaseMs: string, ...members: string[]): Promise<number>;
  hubLeaseOpen(key: string): Promise<number>;
};

/**
 * Open WebSockets per tenant across every ingress (the `openSockets` limit): a sorted set per
 * tenant in Redis whose members are sockets and whose scores are when their leases run out. An
 * upgrade takes a lease if the tenant holds fewer than its limit (one script: concurrent
 * upgrades on any number of ingresses agree); this ingress renews the leases of its open
 * sockets every third of the lease time and removes one when its socket closes. A process
 * killed with -9 renews nothing, so its sockets drop out of the count within `leaseMs`; a
 * counter incremented and decremented would have kept them forever.
 */
export class SocketLeases {
  private readonly redis: LeaseRedis;
  private readonly id = randomBytes(6).toString('hex');
  private seq = 0;
  /** Leases of sockets open here, by tenant: what the renewal sends. */
  private readonly held = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;
  private readonly onError: (e: Error) => void;

  constructor(private readonly opts: SocketLeasesOptions) {
    // Auto-pipelined: the leases of the many upgrades of one moment go in one write (a syscall
    // per acquire was ingress's largest cost of opening a socket after its Postgres read).
    const redis = watchRedis(new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, enableAutoPipelining: true }));
    redis.defineCommand('hubLeaseAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('hubLeaseRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('hubLeaseOpen', { numberOfKeys: 1, lua: OPEN });
    this.redis = redis as LeaseRedis;
    this.onError = opts.onError ?? (() => undefined);
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(opts.leaseMs / 3))).unref();
  }

  private key(tenantId: string): string {
    return `${this.opts.prefix}:limits:sockets:${tenantId}`;
  }

  /** A lease for a new socket of the tenant, unless it holds `limit` already (null: no limit, still counted). */
  async acquire(tenantId: string, limit: number | null): Promise<Admission> {
    const member = `${this.id}:${++this.seq}`;
    const [admitted, open] = await this.redis.hubLeaseAcquire(this.key(tenantId), String(limit ?? 0), String(this.opts.leaseMs), member);
    return admitted === 1 ? { admitted: true, lease: { tenantId, member } } : { admitted: false, open };
  }

  /** Keeps the lease while `socket` is open, and gives it back when it closes. */
  hold(lease: SocketLease, socket: { once(event: 'close', listener: () => void): unknown }): void {
    let members = this.held.get(lease.tenantId);
    if (!members) this.held.set(lease.tenantId, (members = new Set()));
    members.add(lease.member);
    socket.once('close', () => void this.release(lease));
  }

  /** Gives a held lease back (its socket closed); one already given back (by `close`) is left alone. */
  async release(lease: SocketLease): Promise<void> {
    const members = this.held.get(lease.tenantId);
    if (!members?.delete(lease.member)) return;
    if (members.size === 0) this.held.delete(lease.tenantId);
    await this.redis.zrem(this.key(lease.tenantId), lease.member).catch((e: Error) => this.onError(e));
  }

  /** Sockets of the tenant open on every ingress (leases not run out). */
  async open(tenantId: string): Promise<number> {
    return Number(await this.redis.hubLeaseOpen(this.key(tenantId)));
  }

  private async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(([tenantId, members]) =>
        this.redis.hubLeaseRenew(this.key(tenantId), String(this.opts.leaseMs), ...members).catch((e: Error) => this.onError(e)),
      ),
    );
  }

  /** Gives back every lease held here (an orderly stop: its sockets are closing), then disconnects. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const held = [...this.held];
    this.held.clear();
    if (this.redis.status === 'ready') {
      await Promise.all(held.map(([tenantId, members]) => this.redis.zrem(this.key(tenantId), ...members).catch(() => undefined)));
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else this.redis.disconnect();
  }

  /** What `kill -9` leaves behind, for tests: no more renewals and no releases; the leases run out. */
  crash(): void {
    clearInterval(this.timer);
    this.held.clear();
    this.redis.disconnect();
  }
}
