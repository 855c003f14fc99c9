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

/**
 * One line saying why Redis may lose acknowledged jobs, or `null`: BullMQ keeps turns only in
 * Redis, so it should run with AOF (`appendonly yes`) and `maxmemory-policy noeviction`. A
 * warning, not a refusal (the dev stack runs without AOF): the reconciler recovers lost turns
 * from the log, a reconcile interval later.
 */
export async function redisDurabilityWarning(redisUrl: string): Promise<string | null> {
  const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined); // preflight already proved Redis answers; a failure here is reported below
  try {
    await r.connect();
    return durabilityWarningFromInfo(`${await r.info('persistence')}\n${await r.info('memory')}`);
  } catch (e) {
    return `could not read Redis persistence settings: ${(e as Error).message}`;
  } finally {
    r.disconnect();
  }
}

/** {@link redisDurabilityWarning}'s reading of `INFO persistence` and `INFO memory` (their text, `\r\n` lines). */
export function durabilityWarningFromInfo(info: string): string | null {
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const problems: string[] = [];
  if (field('aof_enabled') !== '1') problems.push('AOF is off (appendonly no)');
  const policy = field('maxmemory_policy');
  if (policy && policy !== 'noeviction') problems.push(`maxmemory-policy is ${policy}, not noeviction`);
  if (!problems.length) return null;
  return `Redis may lose queued turns: ${problems.join('; ')}; the reconciler re-schedules them from the log`;
}
