import Redis, { SentinelConnector, type RedisOptions } from 'ioredis';
// Not re-exported by ioredis's index; the plain one-server connector every client uses by default.
import StandaloneConnector from 'ioredis/built/connectors/StandaloneConnector';

/** The Redis Sentinels of a deployment and the name of the primary they watch (`HUB_REDIS_SENTINELS`). */
export interface RedisSentinelSettings {
  sentinels: { host: string; port: number }[];
  name: string;
}

type ConnectorOptions = ConstructorParameters<typeof SentinelConnector>[0];

/**
 * Makes every Redis connection this process opens afterwards find its server through Sentinel:
 * ioredis asks the Sentinels for the current primary of `name` on each (re)connect, so after a
 * failover the hub's clients, BullMQ's included, reconnect to the promoted replica by themselves.
 *
 * It sets ioredis's process-wide default `Connector`, because the process opens its connections
 * in many places from one `REDIS_URL` (queues, signal buses, counters, leases, caches): one
 * switch here instead of a factory threaded through all of them (ADR 0047). Not the `sentinels`
 * default itself: ioredis makes its own connections to the Sentinels with the same defaults, and
 * those must stay plain connections (a connection to a Sentinel's address is one of them).
 * REDIS_URL's password and db still apply; its host and port are unused. Call it once at
 * startup, before any connection exists.
 */
export function useRedisSentinel(settings: RedisSentinelSettings | undefined): void {
  if (!settings) return;
  const { sentinels, name } = settings;
  const toSentinel = (o: ConnectorOptions) => sentinels.some((s) => s.host === (o as { host?: string }).host && s.port === (o as { port?: number }).port);
  // A constructor function may return its object: `new Connector(options)` gets one of the two.
  function HubRedisConnector(options: ConnectorOptions) {
    if (toSentinel(options)) return new StandaloneConnector(options as ConstructorParameters<typeof StandaloneConnector>[0]);
    // failoverDetector: subscribes to the Sentinels' +switch-master, so clients move as soon as a
    // failover is decided, not only when their socket to the old primary breaks.
    return new SentinelConnector({ ...options, sentinels, name, failoverDetector: true });
  }
  // `defaultOptions` is what ioredis fills every client's unset options from; its typings mark it
  // private, so redis-sentinel.spec.ts checks that a client opened afterwards really uses it.
  Object.assign((Redis as unknown as { defaultOptions: RedisOptions }).defaultOptions, { Connector: HubRedisConnector });
}
