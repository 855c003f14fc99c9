import Redis, { type RedisOptions } from 'ioredis';
import { useRedisSentinel } from './redis-sentinel';

// ioredis's defaults are process-wide: the spec puts them back as they were. That BullMQ's
// connections follow a failover too is shown against real Sentinels by the HA suite (tools/ha).
const defaults = (Redis as unknown as { defaultOptions: RedisOptions }).defaultOptions;
const saved = { ...defaults };
afterEach(() => {
  for (const key of Object.keys(defaults) as (keyof RedisOptions)[]) if (!(key in saved)) delete defaults[key];
  Object.assign(defaults, saved);
});

const SETTINGS = { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'hub-primary' };

describe('useRedisSentinel', () => {
  it('makes a client opened afterwards from a plain REDIS_URL ask the Sentinels for the primary', () => {
    useRedisSentinel(SETTINGS);
    const client = new Redis('redis://:secret@10.9.9.9:6379/2', { lazyConnect: true });
    expect(client.options).toEqual(expect.objectContaining({ sentinels: SETTINGS.sentinels, name: 'hub-primary', password: 'secret', db: 2, failoverDetector: true }));
    client.disconnect();
  });

  it('changes nothing without Sentinels (REDIS_URL is the server)', () => {
    useRedisSentinel(undefined);
    const client = new Redis('redis://10.9.9.9:6379', { lazyConnect: true });
    expect(client.options.sentinels).toBeFalsy();
    client.disconnect();
  });
});
