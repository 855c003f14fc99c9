import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue prefix no other test run shares; `cleanup` deletes every key under it. */
export function uniqueQueuePrefix(label: string, redisUrl = TEST_REDIS_URL): { prefix: string; cleanup(): Promise<void> } {
  const prefix = `t-${label.replace(/[^A-Za-z0-9_.-]/g, '')}-${randomBytes(4).toString('hex')}`;
  return {
    prefix,
    async cleanup() {
      const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        r.disconnect();
      }
    },
  };
}
