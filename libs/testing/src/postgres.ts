import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
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
  await onServer((c) => c.query(`CREATE DATABASE "${name}"`));
  const ownerUrl = databaseUrl(name);
  let url = ownerUrl;
  if (options.migrate ?? true) {
    url = devAppUrl(ownerUrl);
    await migrate(ownerUrl, { migrationsDir: MIGRATIONS_DIR })
      .then(() => ensureAppLogin(ownerUrl, url))
      .catch(async (e: unknown) => {
        await dropDatabase(name);
        throw e;
      });
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
