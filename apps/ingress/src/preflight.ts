import { assertPostgresReachable } from '@hub/event-store';
import { ingressConnections } from './connections';
import { assertRedisReachable } from '@hub/queue';

/** Dependencies answer before anything else connects, so a bad URL is one clear line. */
export async function preflight(databaseUrl: string, redisUrl: string, dbPoolSize: number): Promise<void> {
  const rowSecurity = await assertPostgresReachable(databaseUrl, { service: 'ingress', uses: ingressConnections(dbPoolSize) });
  await assertRedisReachable(redisUrl);
  // One line, not a refusal: a role that bypasses row-level security works, without that guard.
  if (rowSecurity) process.stderr.write(`${JSON.stringify({ level: 'warn', msg: rowSecurity })}\n`);
}
