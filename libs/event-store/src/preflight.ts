import { createPool } from './prisma-client';

/** Fails with a one-line reason when Postgres does not answer `SELECT 1`. */
export async function assertPostgresReachable(databaseUrl: string): Promise<void> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    await pool.query('SELECT 1').catch((e: unknown) => {
      throw new Error(`cannot reach Postgres at ${new URL(databaseUrl).host}: ${(e as Error).message}`);
    });
  } finally {
    await pool.end();
  }
}
