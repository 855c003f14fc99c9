import Redis from 'ioredis';

/** Fails with a one-line reason when Redis does not answer a PING within `timeoutMs`. */
export async function assertRedisReachable(redisUrl: string, timeoutMs = 3000): Promise<void> {
  const host = new URL(redisUrl).host;
  const r = new Redis(redisUrl, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let lastError: string | undefined;
  r.on('error', (e: Error) => (lastError = e.message)); // reported below, once
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    throw new Error(`cannot reach Redis at ${host}: ${lastError ?? (e as Error).message}`);
  } finally {
    r.disconnect();
  }
}
