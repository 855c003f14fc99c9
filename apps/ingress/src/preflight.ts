import { assertPostgresReachable } from '@hub/event-store';
import { assertRedisReachable } from '@hub/queue';

/** Dependencies answer before anything else connects, so a bad URL is one clear line. */
export async function preflight(databaseUrl: string, redisUrl: string): Promise<void> {
  await assertPostgresReachable(databaseUrl);
  await assertRedisReachable(redisUrl);
}
