import type { Redis } from 'ioredis';

// Redis's own clock, so every ingress agrees on when a reservation runs out whatever its own says.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: the tenant's reservations. ARGV: limit, reservation ms, the session asking, then the
// sessions the log says are running. Counts the union (the asking session left out: a submit to a
// running session queues behind its turn); under the limit, reserves a place for the asker.
// Returns -1 when admitted, else the count that refused it.
const ADMIT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local me = ARGV[3]
local seen = {}
local n = 0
for i = 4, #ARGV do
  if ARGV[i] ~= me and not seen[ARGV[i]] then seen[ARGV[i]] = true n = n + 1 end
end
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if m ~= me and not seen[m] then seen[m] = true n = n + 1 end
end
if n >= tonumber(ARGV[1]) then return n end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), me)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return -1`;

type ReservationRedis = Redis & { hubTurnAdmit(key: string, limit: string, reserveMs: string, sessionId: string, ...running: string[]): Promise<number> };

/**
 * The `concurrentTurns` limit's places for turns admitted but not yet in the log. The log (read
 * exactly, `ReadModels.runningSessions`) knows every turn appended; a submit checked a moment
 * before another's append would not see it, so a burst of submits could all pass. Each admitted
 * submit reserves a place here (one script: concurrent checks on any number of ingresses agree)
 * until its command is decided and appended, when the log takes over the count; a reservation
 * whose ingress died runs out by itself after `reserveMs`.
 */
export class TurnReservations {
  private readonly redis: ReservationRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly reserveMs: number,
  ) {
    redis.defineCommand('hubTurnAdmit', { numberOfKeys: 1, lua: ADMIT });
    this.redis = redis as ReservationRedis;
  }

  private key(tenantId: string): string {
    return `${this.prefix}:limits:running:${tenantId}`;
  }

  /**
   * Admits a turn of `sessionId` if the tenant runs fewer than `limit` other sessions' turns,
   * counting `running` (from the log) and the places reserved by turns not appended yet, and
   * reserves its place; or says how many it counted.
   */
  async admit(
    tenantId: string,
    sessionId: string,
    limit: number,
    running: readonly string[],
  ): Promise<{ admitted: true } | { admitted: false; running: number }> {
    const n = Number(await this.redis.hubTurnAdmit(this.key(tenantId), String(limit), String(this.reserveMs), sessionId, ...running));
    return n < 0 ? { admitted: true } : { admitted: false, running: n };
  }

  /** Gives the place back: the turn's command was decided (its turn is in the log now) or refused. */
  async release(tenantId: string, sessionId: string): Promise<void> {
    await this.redis.zrem(this.key(tenantId), sessionId);
  }
}
