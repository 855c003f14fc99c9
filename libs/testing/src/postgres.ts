import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createPrismaClient, devAppUrl, ensureAppLogin, migrate, systemScope, type PrismaClient } from '@hub/event-store';
import { Client } from 'pg';

const DEFAULT_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const MIGRATIONS_DIR = resolve(__dirname, '../../../prisma/migrations');

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions {
  /** Start of the database name (letters, digits, underscores), e.g. the spec's name. */
  prefix: string;
  /** Apply prisma/migrations (default true). */
  migrate?: boolean;
}

/** A fresh database of its own for one spec file. */
export interface TestDatabase {
  name: string;
  /**
   * What the apps connect as, exactly as in production: a login role in `hub_app`, under
   * row-level security (the dev login, made on the test server). Unmigrated: the owner's.
   */
  url: string;
  /** The test server's superuser, who ran the migrations: for looking behind the apps' back. */
  ownerUrl: string;
  /** A Prisma client on `url` for API-key work (system scope `api-keys`), created on first use and closed by `drop()`. */
  readonly prisma: PrismaClient;
  /** Drops the database, even with connections still open (WITH FORCE). */
  drop(): Promise<void>;
}

/** The server tests use: `DATABASE_URL`, or the local trust-auth Postgres. */
export function testServerUrl(): string {
  return process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
}

/**
 * Creates a uniquely named database on the `DATABASE_URL` server and applies the migrations
 * with the hub's own runner as the server's superuser (the owner), then makes sure the apps'
 * login role exists. No Docker: the local (or CI) Postgres service is the path.
 */
export async function createTestDatabase(options: TestDatabaseOptions): Promise<TestDatabase> {
  if (!/^[a-z][a-z0-9_]{0,40}$/i.test(options.prefix)) {
    throw new Error(`test database prefix must be letters, digits and underscores: ${options.prefix}`);
  }
  const name = `${options.prefix}_${randomBytes(6).toString('hex')}`.toLowerCase();
  const ownerUrl = databaseUrl(name);
  let url = ownerUrl;
  if (options.migrate ?? true) {
    await cloneMigrated(name);
    url = devAppUrl(ownerUrl);
    await ensureAppLogin(ownerUrl, url).catch(async (e: unknown) => {
      await dropDatabase(name);
      throw e;
    });
  } else {
    await onServer((c) => c.query(`CREATE DATABASE "${name}"`));
  }
  let prisma: PrismaClient | undefined;
  return {
    name,
    url,
    ownerUrl,
    get prisma() {
      prisma ??= createPrismaClient(url, systemScope('api-keys'));
      return prisma;
    },
    drop: async () => {
      await dropDatabase(name);
      await prisma?.$disconnect();
    },
  };
}

/** Server-wide advisory lock key under which a migrated template is built (any number no one else uses). */
const TEMPLATE_LOCK = 0x68756274; // "hubt"
const TEMPLATE_PREFIX = 'hubtmpl_';
let template: Promise<string> | undefined;

/**
 * A new database `name` with every migration applied: a copy of a template database that the
 * migrations were run into once, instead of running them again for each spec file (measured
 * on a loaded 2-core box: 1.6–2.8 s to create and migrate, 1.0–2.0 s to copy, where a bare
 * CREATE DATABASE takes 0.7–1.0 s; ~150 databases a suite). The template is named by a hash
 * of prisma/migrations, so a changed or added
 * migration makes a new one; it takes no connections, so a copy never finds it in use.
 */
async function cloneMigrated(name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const from = await (template ??= migratedTemplate());
    try {
      await onServer((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${from}"`));
      return;
    } catch (e) {
      // Another checkout with other migrations replaced the template in between: build again.
      if (attempt > 0 || !(typeof e === 'object' && e !== null && 'code' in e && e.code === '3D000')) throw e;
      template = undefined;
    }
  }
}

async function migrationsHash(): Promise<string> {
  const hash = createHash('sha256');
  const entries = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  for (const dir of entries.sort()) hash.update(`${dir}\n`).update(await readFile(join(MIGRATIONS_DIR, dir, 'migration.sql')));
  return hash.digest('hex').slice(0, 20);
}

/** The template for the current migrations, built under a server-wide lock when missing. */
async function migratedTemplate(): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${await migrationsHash()}`;
  const client = await connectToServer();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    if ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
    // Templates of other migrations, and builds a crash left behind (builds run only under the lock).
    const others = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '${TEMPLATE_PREFIX}%'`);
    for (const { datname } of others.rows) {
      await client
        .query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`)
        .then(() => client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`))
        .catch(() => undefined);
    }
    const building = `${name}_build`;
    await client.query(`CREATE DATABASE "${building}"`);
    try {
      await migrate(databaseUrl(building), { migrationsDir: MIGRATIONS_DIR });
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    } catch (e) {
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`).catch(() => undefined);
      throw e;
    }
    return name;
  } finally {
    await client.end();
  }
}

function databaseUrl(name: string): string {
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(name: string): Promise<void> {
  await onServer((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

async function onServer<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectToServer();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A connected client on the test server, for server-wide statements. DATABASE_URL may name a
 * database that does not exist yet (the app's, e.g. `/hub`); then the server's `postgres`
 * database is used. The caller ends the client.
 */
export async function connectToServer(): Promise<Client> {
  const client = new Client({ connectionString: testServerUrl() });
  try {
    await client.connect();
    return client;
  } catch (e) {
    if (!(typeof e === 'object' && e !== null && 'code' in e && e.code === '3D000')) throw e;
    const url = new URL(testServerUrl());
    url.pathname = '/postgres';
    const fallback = new Client({ connectionString: url.toString() });
    await fallback.connect();
    return fallback;
  }
}
