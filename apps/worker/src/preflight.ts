import { assertPostgresReachable } from '@hub/event-store';
import { workerConnections } from './connections';
import { assertRedisReachable, redisDurabilityWarning } from '@hub/queue';

/** Redis through Sentinel (HUB_REDIS_SENTINELS): main.ts switches it on before anything connects. */
export { useRedisSentinel } from '@hub/queue';

/** Dependencies answer before anything else connects, so a bad URL is one clear line. */
export async function preflight(databaseUrl: string, redisUrl: string, dbPoolSize: number): Promise<void> {
  const rowSecurity = await assertPostgresReachable(databaseUrl, { service: 'worker', uses: workerConnections(dbPoolSize) });
  await assertRedisReachable(redisUrl);
  // One line each, not a refusal: the dev stack's Redis runs without AOF, and the reconciler
  // covers it; a database role that bypasses row-level security works, without that guard.
  const warning = await redisDurabilityWarning(redisUrl);
  for (const line of [rowSecurity, warning]) if (line) process.stderr.write(`${JSON.stringify({ level: 'warn', msg: line })}\n`);
}
