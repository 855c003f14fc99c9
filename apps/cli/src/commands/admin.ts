import { Client } from 'pg';
import { ApiKeyService } from '@hub/auth';
import { createPrismaClient, migrate } from '@hub/event-store';
import { MIGRATIONS_DIR } from '../paths';

/** Creates the database named in `url` when it does not exist yet (dev and first deploys). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  await client.connect().catch((e: unknown) => {
    throw new Error(`cannot reach Postgres at ${target.host}: ${(e as Error).message}`);
  });
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

export async function runMigrate(databaseUrl: string, log: (line: string) => void): Promise<void> {
  await ensureDatabase(databaseUrl);
  const res = await migrate(databaseUrl, { migrationsDir: MIGRATIONS_DIR, log });
  log(`migrations: ${res.applied.length} applied, ${res.alreadyApplied.length} already applied`);
}

export async function withKeys<T>(databaseUrl: string, f: (keys: ApiKeyService) => Promise<T>): Promise<T> {
  const prisma = createPrismaClient(databaseUrl);
  try {
    return await f(new ApiKeyService(prisma as never));
  } finally {
    await prisma.$disconnect();
  }
}
