import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { devAppUrl, ensureAppLogin } from '../app-role';
import { migrate } from '../migrate';
import { errorCode } from '../pg-errors';

// Specs of this lib cannot use @hub/testing (it depends on this lib); this is its small twin,
// and like it reads the test server's address from the environment.
// eslint-disable-next-line no-restricted-properties
export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const MIGRATIONS_DIR = resolve(__dirname, '../../../../prisma/migrations');

export interface ScratchDatabase {
  /**
   * What the code under test connects as, as the apps do: the dev login role, a member of
   * hub_app, under row-level security. Before migrations (`migrations: false`) the role may not
   * exist yet: use the owner's.
   */
  url: string;
  pool: Pool;
  /** The server's superuser, who ran the migrations: for what a test looks at or breaks behind the code's back. */
  ownerUrl: string;
  ownerPool: Pool;
  drop(): Promise<void>;
}

export function urlFor(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  let client = new Client({ connectionString: ADMIN_URL });
  // DATABASE_URL may name the app's database, not created yet; the server's own will do.
  await client.connect().catch(async (e: unknown) => {
    if (errorCode(e) !== '3D000') throw e;
    client = new Client({ connectionString: urlFor('postgres') });
    await client.connect();
  });
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database (migrated unless `migrations: false`), dropped by `drop()`. */
export async function createScratchDatabase(prefix: string, migrations = true): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`.toLowerCase();
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const ownerUrl = urlFor(name);
  if (migrations) await migrate(ownerUrl, { migrationsDir: MIGRATIONS_DIR });
  const url = migrations ? devAppUrl(ownerUrl) : ownerUrl;
  if (migrations) await ensureAppLogin(ownerUrl, url);
  const pool = new Pool({ connectionString: url, max: 20 });
  const ownerPool = new Pool({ connectionString: ownerUrl, max: 4 });
  pool.on('error', () => undefined);
  ownerPool.on('error', () => undefined);
  return {
    url,
    pool,
    ownerUrl,
    ownerPool,
    // FORCE first: a test that failed mid-transaction must not keep pool.end() waiting.
    drop: async () => {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      await Promise.all([pool.end(), ownerPool.end()]);
    },
  };
}
