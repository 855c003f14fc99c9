import { assertPostgresReachable } from '@hub/event-store';
import { ingressConnections } from './connections';
import { assertRedisReachable, redisDurabilityWarning } from '@hub/queue';

/** Redis through Sentinel (HUB_REDIS_SENTINELS): main.ts switches it on before anything connects. */
export { useRedisSentinel } from '@hub/queue';

/** Dependencies answer before anything else connects, so a bad URL is one clear line. */
export async function preflight(databaseUrl: string, redisUrl: string, dbPoolSize: number): Promise<void> {
  const rowSecurity = await assertPostgresReachable(databaseUrl, { service: 'ingress', uses: ingressConnections(dbPoolSize) });
  await assertRedisReachable(redisUrl);
  // One line each, not a refusal: a role that bypasses row-level security works, without that
  // guard; a Redis that may lose data (no AOF, evictions) loses the turns ingress enqueues, which
  // the workers' reconciler schedules again from the log, and the socket leases, which renew.
  const warning = await redisDurabilityWarning(redisUrl);
  for (const line of [rowSecurity, warning]) if (line) process.stderr.write(`${JSON.stringify({ level: 'warn', msg: line })}\n`);
}
