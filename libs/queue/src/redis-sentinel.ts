import Redis, { type RedisOptions } from 'ioredis';

/** The Redis Sentinels of a deployment and the name of the primary they watch (`HUB_REDIS_SENTINELS`). */
export interface RedisSentinelSettings {
  sentinels: { host: string; port: number }[];
  name: string;
}

/**
 * Makes every Redis connection this process opens afterwards find its server through Sentinel:
 * ioredis asks the Sentinels for the current primary of `name` on each (re)connect, so after a
 * failover the hub's clients, BullMQ's included, reconnect to the promoted replica by themselves.
 * It sets ioredis's process-wide defaults because the process opens its connections in many
 * places from one `REDIS_URL` (queues, signal buses, counters, leases, caches): one switch here
 * instead of a factory threaded through all of them (ADR 0047). REDIS_URL's password and db still
 * apply; its host and port are unused. Call it once at startup, before any connection exists.
 */
export function useRedisSentinel(settings: RedisSentinelSettings | undefined): void {
  if (!settings) return;
  // `defaultOptions` is what ioredis fills every client's unset options from; its typings mark it
  // private, so redis-sentinel.spec.ts checks that a client opened afterwards really has them.
  Object.assign((Redis as unknown as { defaultOptions: RedisOptions }).defaultOptions, {
    sentinels: settings.sentinels,
    name: settings.name,
    // Subscribes to the Sentinels' +switch-master: clients move as soon as a failover is
    // decided, not only when their socket to the old primary breaks.
    failoverDetector: true,
  });
}
