import { rowSecurityProblem } from './app-role';
import { createPool } from './prisma-client';

/**
 * Fails with a one-line reason when Postgres does not answer. Otherwise returns why row-level
 * security does not hold for the role `databaseUrl` connects as (a superuser or BYPASSRLS role
 * sees every tenant), a line for the process to log at boot, or null.
 */
export async function assertPostgresReachable(databaseUrl: string): Promise<string | null> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    return await rowSecurityProblem(pool).catch((e: unknown) => {
      throw new Error(`cannot reach Postgres at ${new URL(databaseUrl).host}: ${(e as Error).message}`);
    });
  } finally {
    await pool.end();
  }
}
