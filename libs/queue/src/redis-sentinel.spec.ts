import Redis, { SentinelConnector, type RedisOptions } from 'ioredis';
import { useRedisSentinel } from './redis-sentinel';

// ioredis's defaults are process-wide: the spec puts them back as they were. That clients follow
// a real failover (BullMQ's too) is shown against real Sentinels by the HA suite (tools/ha).
const defaults = (Redis as unknown as { defaultOptions: RedisOptions }).defaultOptions;
const saved = { ...defaults };
afterEach(() => {
  for (const key of Object.keys(defaults) as (keyof RedisOptions)[]) if (!(key in saved)) delete defaults[key];
  Object.assign(defaults, saved);
});

const SETTINGS = { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'hub-primary' };
type WithConnector = { connector: { options: RedisOptions } };

describe('useRedisSentinel', () => {
  it('makes a client opened afterwards from a plain REDIS_URL ask the Sentinels for the primary', () => {
    useRedisSentinel(SETTINGS);
    const client = new Redis('redis://:secret@10.9.9.9:6379/2', { lazyConnect: true });
    const connector = (client as unknown as WithConnector).connector;
    expect(connector).toBeInstanceOf(SentinelConnector);
    expect(connector.options).toEqual(expect.objectContaining({ sentinels: SETTINGS.sentinels, name: 'hub-primary', failoverDetector: true }));
    expect(client.options).toEqual(expect.objectContaining({ password: 'secret', db: 2 }));
    client.disconnect();
  });

  it("leaves ioredis's own connections to the Sentinels plain (no Sentinel lookup of a Sentinel)", () => {
    useRedisSentinel(SETTINGS);
    const toSentinel = new Redis({ host: '127.0.0.1', port: 26379, lazyConnect: true });
    expect((toSentinel as unknown as WithConnector).connector).not.toBeInstanceOf(SentinelConnector);
    toSentinel.disconnect();
  });

  it('changes nothing without Sentinels (REDIS_URL is the server)', () => {
    useRedisSentinel(undefined);
    const client = new Redis('redis://10.9.9.9:6379', { lazyConnect: true });
    expect((client as unknown as WithConnector).connector).not.toBeInstanceOf(SentinelConnector);
    client.disconnect();
  });
});
