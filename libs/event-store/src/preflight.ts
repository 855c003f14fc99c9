import { rowSecurityProblem } from './app-role';
import { assertConnectionsFit, type ConnectionUse } from './connection-budget';
import { createPool } from './prisma-client';

/**
 * Fails with a one-line reason when Postgres does not answer, or (with `budget`) when the
 * process could open more connections than the server has left. Otherwise returns why row-level
 * security does not hold for the role `databaseUrl` connects as (a superuser or BYPASSRLS role
 * sees every tenant), a line for the process to log at boot, or null.
 */
export async function assertPostgresReachable(databaseUrl: string, budget?: { service: string; uses: readonly ConnectionUse[] }): Promise<string | null> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    const problem = await rowSecurityProblem(pool).catch((e: unknown) => {
      throw new Error(`cannot reach Postgres at ${new URL(databaseUrl).host}: ${(e as Error).message}`);
    });
    // On the same connection: a configuration that could run Postgres out of connections is
    // refused now, not under load (docs/connections.md).
    if (budget) await assertConnectionsFit(pool, budget.service, budget.uses);
    return problem;
  } finally {
    await pool.end();
  }
}
