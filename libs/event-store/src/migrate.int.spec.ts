import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrate, MigrationError } from './migrate';
import { createScratchDatabase, MIGRATIONS_DIR, type ScratchDatabase } from './testing/scratch-database';

async function tables(db: ScratchDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.t);
}

async function writeMigration(dir: string, name: string, sql: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'migration.sql'), sql);
}

describe('migrate', () => {
  let db: ScratchDatabase;
  let dir: string;

  beforeEach(async () => {
    db = await createScratchDatabase('migrate', false);
    dir = await mkdtemp(join(tmpdir(), 'hub-migrations-'));
  });
  afterEach(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies the real migrations once, records them as Prisma does, and re-running is a no-op', async () => {
    const lines: string[] = [];
    const first = await migrate(db.url, { migrationsDir: MIGRATIONS_DIR, log: (l) => lines.push(l) });
    expect(first.applied.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^applied \d{14}_init$/);
    const { rows } = await db.pool.query(`SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at, logs FROM _prisma_migrations`);
    const sql = await readFile(join(MIGRATIONS_DIR, first.applied[0], 'migration.sql'));
    expect(rows[0]).toMatchObject({
      migration_name: first.applied[0],
      checksum: createHash('sha256').update(sql).digest('hex'),
      applied_steps_count: 1,
      rolled_back_at: null,
      logs: null,
    });
    expect(rows[0].finished_at).toBeInstanceOf(Date);

    const again = await migrate(db.url, { migrationsDir: MIGRATIONS_DIR });
    expect(again).toEqual({ applied: [], alreadyApplied: first.applied });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM _prisma_migrations')).rows[0].n).toBe(first.applied.length);
  });

  it('rolls back a migration that fails half-way and names it and the SQL error', async () => {
    await writeMigration(dir, '20260101000000_good', 'CREATE TABLE good (id int);');
    await writeMigration(dir, '20260102000000_broken', 'CREATE TABLE half (id int);\nSELECT * FROM no_such_table;');
    const error = await migrate(db.url, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).migration).toBe('20260102000000_broken');
    expect((error as Error).message).toMatch(/20260102000000_broken.*relation "no_such_table" does not exist.*42P01/);
    expect(await tables(db)).toEqual(['_prisma_migrations', 'good']);
    const { rows } = await db.pool.query('SELECT migration_name FROM _prisma_migrations');
    expect(rows).toEqual([{ migration_name: '20260101000000_good' }]);
  });

  it('refuses to go on when an applied migration was edited', async () => {
    await writeMigration(dir, '20260101000000_a', 'CREATE TABLE a (id int);');
    await migrate(db.url, { migrationsDir: dir });
    await writeMigration(dir, '20260101000000_a', 'CREATE TABLE a (id bigint);');
    await writeMigration(dir, '20260102000000_b', 'CREATE TABLE b (id int);');
    await expect(migrate(db.url, { migrationsDir: dir })).rejects.toThrow(/20260101000000_a was modified after it was applied/);
    expect(await tables(db)).not.toContain('b');
  });

  it('is safe to run concurrently: each migration is applied exactly once', async () => {
    await writeMigration(dir, '20260101000000_a', 'CREATE TABLE a (id int);');
    await writeMigration(dir, '20260102000000_b', 'CREATE TABLE b (id int); SELECT pg_sleep(0.2);');
    const results = await Promise.all(Array.from({ length: 5 }, () => migrate(db.url, { migrationsDir: dir })));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(['20260101000000_a', '20260102000000_b']);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM _prisma_migrations');
    expect(rows[0].n).toBe(2);
  });

  it('says plainly when Postgres cannot be reached', async () => {
    await expect(migrate('postgresql://postgres@127.0.0.1:1/hub', { migrationsDir: dir })).rejects.toThrow(
      'cannot reach Postgres at 127.0.0.1:1/hub: ECONNREFUSED',
    );
  });

  it('says plainly when the database does not exist', async () => {
    const url = new URL(db.url);
    url.pathname = '/no_such_database_hub';
    await expect(migrate(url.toString(), { migrationsDir: dir })).rejects.toThrow(
      /cannot connect to Postgres at 127\.0\.0\.1:5432\/no_such_database_hub: database "no_such_database_hub" does not exist/,
    );
  });
});

describe('migrate bookkeeping', () => {
  it('creates _prisma_migrations with the columns Prisma expects, in its order', async () => {
    const db = await createScratchDatabase('migrate_prisma', true);
    try {
      const client = new Client({ connectionString: db.ownerUrl });
      await client.connect();
      const { rows } = await client.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
          WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
      );
      await client.end();
      expect(rows.map((r: { column_name: string }) => r.column_name)).toEqual([
        'id',
        'checksum',
        'finished_at',
        'migration_name',
        'logs',
        'rolled_back_at',
        'started_at',
        'applied_steps_count',
      ]);
      expect((await migrate(db.ownerUrl, { migrationsDir: MIGRATIONS_DIR })).applied).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});
