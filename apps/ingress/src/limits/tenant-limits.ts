import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ADMIN_STREAM_ID, DomainError, limitsOf, sessionStreamId, type TenantLimits } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { ReadModels } from '@hub/projections';
import { DailyEventBytes, DailyTokens, TurnReservations, type DailyCounter } from '@hub/queue';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';

/** How long a tenant's limits are taken as read: a change reaches every ingress within this. */
const LIMITS_TTL_MS = 2_000;

/** What a client refused for its number of sessions is told to wait: one must be erased first. */
const SESSIONS_RETRY_MS = 60_000;

/** Gives back what an admitted turn held while its command was decided (a `concurrentTurns` place). */
type TurnRelease = () => Promise<void>;
const NOTHING_HELD: TurnRelease = async () => undefined;

/**
 * Waits for independent checks together (each is a read of its own: Postgres or Redis, one round
 * trip's wait instead of one per limit set); the first of them to refuse, in the order given, is
 * the answer, as when they ran one after the other.
 */
async function firstRefusal(checks: Promise<void>[]): Promise<void> {
  for (const r of await Promise.allSettled(checks)) if (r.status === 'rejected') throw r.reason;
}

/**
 * The tenant limits an admin set (the last `TenantLimitsSet` on the tenant's admin stream) and
 * their counters, kept in Redis by rate-limiter-flexible: shared by every ingress and kept over
 * an ingress restart. A limit is checked before a command is queued or a session opened, so a
 * refused one appends nothing. (Open sockets are counted at the upgrade: tenant-sockets.ts.)
 */
@Injectable()
export class TenantLimitsService implements OnModuleDestroy {
  private readonly redis: Redis;
  private readonly cache = new Map<string, { limits: TenantLimits; at: number }>();
  /** One limiter per limit value: a changed limit starts counting under its own key. */
  private readonly turnLimiters = new Map<number, RateLimiterRedis>();
  private readonly reservations: TurnReservations;

  constructor(
    private readonly store: EventStore,
    private readonly reads: ReadModels,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
    private readonly tokens: DailyTokens,
    private readonly eventBytes: DailyEventBytes,
  ) {
    // A command waits for its counter: with Redis gone it fails after one retry rather than hanging.
    this.redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });
    // A place is held while a command is decided, at most its deadline; a dead ingress's runs out.
    this.reservations = new TurnReservations(this.redis, settings.queuePrefix, settings.commandTimeoutMs + 5_000);
  }

  async limitsOf(tenantId: string): Promise<TenantLimits> {
    const cached = this.cache.get(tenantId);
    if (cached && Date.now() - cached.at < LIMITS_TTL_MS) return cached.limits;
    // Only the last TenantLimitsSet counts: the admin stream also holds every key change and
    // erasure tombstone, and grows with them.
    const last = await this.store.lastOfType(tenantId, ADMIN_STREAM_ID, 'TenantLimitsSet');
    const limits = limitsOf(last ? [last] : []);
    this.cache.set(tenantId, { limits, at: Date.now() });
    return limits;
  }

  /** Forgets the cached limits of a tenant whose admin just changed them here. */
  forget(tenantId: string): void {
    this.cache.delete(tenantId);
  }

  /**
   * Checks the limits a submitted turn is held to, and counts it: running turns, the day's model
   * tokens and event bytes, the number of sessions when it opens a new one, and turns per minute
   * (counted last, so a turn refused for another limit does not spend one). RATE_LIMITED (with
   * `retryAfterMs`) names the limit that is used up. An admitted turn holds a place among the
   * running ones until its command is decided: call the release then (appended or refused).
   */
  takeTurn(tenantId: string, sessionId: string): Promise<TurnRelease> {
    return this.checkTurn(tenantId, sessionId, true);
  }

  /**
   * Checks the limits on what opening a session outside a turn appends (ACP `session/new`,
   * OpenEnv `reset`, a fork, a re-drive): the number of sessions and the day's event bytes. With
   * `turn`, the session is opened to run turns at once (a re-drive): the turn limits are checked
   * too, without spending a turn (each turn spends its own when it is submitted), so a re-drive
   * that would be refused its first turn opens nothing.
   */
  async openSession(tenantId: string, sessionId: string | null, opts: { turn?: boolean } = {}): Promise<void> {
    if (opts.turn && sessionId !== null) {
      await this.checkTurn(tenantId, sessionId, false);
      return;
    }
    await this.checkGrowth(tenantId, sessionId, await this.limitsOf(tenantId));
  }

  private async checkTurn(tenantId: string, sessionId: string, spend: boolean): Promise<TurnRelease> {
    const limits = await this.limitsOf(tenantId);
    const running = this.checkRunning(tenantId, sessionId, limits.concurrentTurns, spend);
    try {
      await firstRefusal([
        running.then(() => undefined),
        this.daily(tenantId, limits.tokensPerDay, this.tokens, 'model tokens'),
        this.checkGrowth(tenantId, sessionId, limits),
      ]);
      await this.spendTurn(tenantId, limits.turnsPerMinute, spend);
    } catch (e) {
      // Refused for another limit: the place taken among the running turns goes back at once.
      await (
        await running.catch(() => NOTHING_HELD)
      )();
      throw e;
    }
    return running;
  }

  /** Turns per minute: counted when `spend` (a submit), only compared otherwise. */
  private async spendTurn(tenantId: string, turnsPerMinute: number | null, spend: boolean): Promise<void> {
    if (turnsPerMinute === null) return;
    const limiter = this.turnLimiter(turnsPerMinute);
    const refuse = (res: RateLimiterRes) => {
      const retryAfterMs = Math.max(1, Math.ceil(res.msBeforeNext));
      return new DomainError(
        'RATE_LIMITED',
        `this tenant's limit of ${turnsPerMinute} turns per minute is used up; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        { retryAfterMs },
      );
    };
    if (!spend) {
      const now = await limiter.get(tenantId);
      if (now && now.consumedPoints >= turnsPerMinute) throw refuse(now);
      return;
    }
    try {
      await limiter.consume(tenantId);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw refuse(e);
    }
  }

  /**
   * The tenant's running turns: the sessions the log says run one (exactly, not a projection
   * step behind), and, when `reserve`, the turns admitted but not appended yet, whose places are
   * held in Redis (TurnReservations) so that a burst of submits cannot all pass. A submit to a
   * session that is already running only queues behind its turn, so that session counts once.
   */
  private async checkRunning(tenantId: string, sessionId: string, concurrentTurns: number | null, reserve: boolean): Promise<TurnRelease> {
    if (concurrentTurns === null) return NOTHING_HELD;
    const running = await this.reads.runningSessions(tenantId);
    const refuse = (n: number) =>
      new DomainError('RATE_LIMITED', `this tenant may run ${concurrentTurns} turns at once and runs ${n}; retry when one ends`, { retryAfterMs: 1_000 });
    if (!reserve) {
      const others = running.filter((s) => s !== sessionId).length;
      if (others >= concurrentTurns) throw refuse(others);
      return NOTHING_HELD;
    }
    const admission = await this.reservations.admit(tenantId, sessionId, concurrentTurns, running);
    if (!admission.admitted) throw refuse(admission.running);
    // A release lost with Redis away: the place runs out by itself.
    return () => this.reservations.release(tenantId, sessionId).catch(() => undefined);
  }

  /** How much the tenant's log may still grow: event bytes today, and sessions when `sessionId` is new (null: a new id). */
  private checkGrowth(tenantId: string, sessionId: string | null, { eventBytesPerDay, sessions }: TenantLimits): Promise<void> {
    return firstRefusal([this.daily(tenantId, eventBytesPerDay, this.eventBytes, 'event bytes'), this.checkSessions(tenantId, sessionId, sessions)]);
  }

  private async checkSessions(tenantId: string, sessionId: string | null, sessions: number | null): Promise<void> {
    if (sessions === null) return;
    // Only a submit that opens a session counts against it: a turn of an existing one is one
    // index lookup, the tenant's sessions are counted only for a new id (only with the limit set).
    const n = await this.store.countUnlessExists(tenantId, sessionStreamId(''), sessionId === null ? null : sessionStreamId(sessionId));
    if (n !== null && n >= sessions)
      throw new DomainError('RATE_LIMITED', `this tenant may have ${sessions} sessions and has ${n}: erase one or ask for more`, {
        retryAfterMs: SESSIONS_RETRY_MS,
      });
  }

  /**
   * A per-day limit, counted by whoever did the work (workers: tokens; every appender: event
   * bytes): what is already running finishes even past it; the next submit waits for the window.
   */
  private async daily(tenantId: string, limit: number | null, counter: DailyCounter, what: string): Promise<void> {
    if (limit === null) return;
    const used = await counter.used(tenantId);
    if (used.amount < limit) return;
    const retryAfterMs = Math.max(1_000, used.resetsInMs);
    throw new DomainError(
      'RATE_LIMITED',
      `this tenant's ${limit} ${what} per day are used up (${used.amount}); retry in ${Math.ceil(retryAfterMs / 60_000)} min`,
      { retryAfterMs },
    );
  }

  private turnLimiter(points: number): RateLimiterRedis {
    let limiter = this.turnLimiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.settings.queuePrefix}:limits:turns:${points}`, points, duration: 60 });
      this.turnLimiters.set(points, limiter);
    }
    return limiter;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.redis.status !== 'end') await this.redis.quit().catch(() => undefined);
  }
}
