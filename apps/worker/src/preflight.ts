import { assertPostgresReachable } from '@hub/event-store';
import { assertRedisReachable, redisDurabilityWarning } from '@hub/queue';

/** Dependencies answer before anything else connects, so a bad URL is one clear line. */
export async function preflight(databaseUrl: string, redisUrl: string): Promise<void> {
  await assertPostgresReachable(databaseUrl);
  await assertRedisReachable(redisUrl);
  // One line, not a refusal: the dev stack's Redis runs without AOF, and the reconciler covers it.
  const warning = await redisDurabilityWarning(redisUrl);
  if (warning) process.stderr.write(`${JSON.stringify({ level: 'warn', msg: warning })}\n`);
}
