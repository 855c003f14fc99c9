import { Client } from 'pg';
import { ensureAppLogin, migrate } from '@hub/event-store';
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

/** Where `hub migrate` connects: the tables' owner, and (when it is another user) the apps' login. */
export interface MigrateUrls {
  owner: string;
  app?: string;
}

/**
 * Applies the migrations as the owner. When the apps connect as another user, also makes sure
 * that login exists and is in `hub_app` (row-level security holds it), so a deployment needs
 * only the two URLs.
 */
export async function runMigrate(urls: MigrateUrls, log: (line: string) => void): Promise<void> {
  const owner = new URL(urls.owner);
  const app = urls.app === undefined ? undefined : new URL(urls.app);
  if (app && `${app.host}${app.pathname}` !== `${owner.host}${owner.pathname}`) {
    throw new Error(`HUB_OWNER_DATABASE_URL (${owner.host}${owner.pathname}) and DATABASE_URL (${app.host}${app.pathname}) name different databases`);
  }
  await ensureDatabase(urls.owner);
  const res = await migrate(urls.owner, { migrationsDir: MIGRATIONS_DIR, log });
  log(`migrations: ${res.applied.length} applied, ${res.alreadyApplied.length} already applied`);
  if (!urls.app || !app || app.username === owner.username) return;
  await ensureAppLogin(urls.owner, urls.app);
  log(`the apps connect as ${decodeURIComponent(app.username)}, a login in hub_app (row-level security)`);
}
