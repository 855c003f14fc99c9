import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { explainConnectError, messageOf } from './pg-errors';

/** The lock `prisma migrate` itself takes, so this runner and Prisma's exclude each other. */
const PRISMA_MIGRATE_LOCK = 72707369;

// Prisma's own DDL for its bookkeeping table (schema-engine, postgres flavour).
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Folder holding `<timestamp>_<name>/migration.sql`; defaults to `<cwd>/prisma/migrations`. */
  migrationsDir?: string;
  /** Progress lines ("applied 2026..._init"); silent when omitted. */
  log?: (line: string) => void;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

/** A migration could not be applied, or the database disagrees with the migrations folder. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    message: string,
    readonly migration?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

/**
 * Applies pending migrations in name order, each in its own transaction together with its
 * `_prisma_migrations` row, so `prisma migrate deploy` accepts the database afterwards and a
 * failed migration leaves nothing behind. Holds Prisma's advisory lock for the whole run, so
 * concurrent calls (several processes booting at once) apply each migration once.
 * A migration must not contain its own BEGIN/COMMIT or `CREATE INDEX CONCURRENTLY`.
 */
export async function migrate(connectionString: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const dir = options.migrationsDir ?? resolve(process.cwd(), 'prisma/migrations');
  const log = options.log ?? (() => undefined);
  const local = await readMigrations(dir);
  const client = new Client({ connectionString });
  // An idle connection error must not crash the process; the awaited query reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    throw explainConnectError(e, connectionString);
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const applied = await appliedMigrations(client);
    checkApplied(local, applied, log);
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const m of local) {
      if (applied.has(m.name)) {
        result.alreadyApplied.push(m.name);
        continue;
      }
      await applyOne(client, m);
      log(`applied ${m.name}`);
      result.applied.push(m.name);
    }
    if (result.applied.length === 0) log('no pending migrations');
    return result;
  } finally {
    // Closing the session releases the advisory lock too.
    await client.end().catch(() => undefined);
  }
}

async function readMigrations(dir: string): Promise<LocalMigration[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new MigrationError(`cannot read migrations folder ${dir}: ${messageOf(e)}`, undefined, { cause: e });
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: LocalMigration[] = [];
  for (const name of names) {
    const bytes = await readFile(join(dir, name, 'migration.sql')).catch((e: unknown) => {
      throw new MigrationError(`migration ${name} has no readable migration.sql: ${messageOf(e)}`, name, { cause: e });
    });
    out.push({ name, sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}

async function appliedMigrations(client: Client): Promise<Map<string, AppliedRow>> {
  const { rows } = await client.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"
      WHERE rolled_back_at IS NULL ORDER BY started_at`,
  );
  return new Map(rows.map((r) => [r.migration_name, r]));
}

/** Refuses to go on when history was rewritten or an earlier (Prisma) run failed half-way. */
function checkApplied(local: LocalMigration[], applied: Map<string, AppliedRow>, log: (l: string) => void): void {
  const byName = new Map(local.map((m) => [m.name, m]));
  for (const row of applied.values()) {
    const m = byName.get(row.migration_name);
    if (!m) {
      log(`warning: ${row.migration_name} is applied to the database but missing from the migrations folder`);
      continue;
    }
    if (row.finished_at === null) {
      throw new MigrationError(`migration ${m.name} started earlier but never finished; resolve it (prisma migrate resolve) before migrating`, m.name);
    }
    if (row.checksum !== m.checksum) {
      throw new MigrationError(
        `migration ${m.name} was modified after it was applied (checksum ${row.checksum} in the database, ${m.checksum} on disk)`,
        m.name,
      );
    }
  }
}

async function applyOne(client: Client, m: LocalMigration): Promise<void> {
  const id = randomUUID();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, m.checksum, m.name],
    );
    // No parameters: pg then uses the simple query protocol, which runs a multi-statement script.
    await client.query(m.sql);
    await client.query(`UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`, [id]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationError(`migration ${m.name} failed and was rolled back: ${describeSqlError(e)}`, m.name, {
      cause: e,
    });
  }
}

function describeSqlError(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
    const pg = e as { code: string; position?: string };
    const at = pg.position ? ` at character ${pg.position}` : '';
    return `${messageOf(e)} (SQLSTATE ${pg.code}${at})`;
  }
  return messageOf(e);
}
