import type { Client, Pool } from 'pg';
import type { Datamodel, DmmfField, DmmfModel } from './prisma-dmmf';

// Both sides are reduced to the same set of one-line facts ("column events.data json NOT NULL",
// "index events_pkey ON events primary (global_position)"); the schemas agree when the sets do.

const INDEX_SUFFIX = { id: 'pkey', unique: 'key', normal: 'idx', fulltext: 'idx' } as const;

/** The facts schema.prisma states: tables, columns, keys, indexes, foreign keys. */
export function factsFromDatamodel(dm: Datamodel): string[] {
  const facts: string[] = [];
  for (const model of dm.models) {
    const table = tableOf(model);
    facts.push(`table ${table}`);
    for (const f of model.fields) {
      if (f.kind === 'object') {
        if (f.relationFromFields && f.relationFromFields.length > 0) facts.push(foreignKeyFact(dm, model, f));
        continue;
      }
      facts.push(`column ${table}.${columnOf(model, f.name)} ${f.isList ? '_' : ''}${typeOf(f)} ${f.isRequired ? 'NOT NULL' : 'NULL'}`);
    }
  }
  for (const index of dm.indexes) {
    const model = dm.models.find((m) => m.name === index.model);
    if (!model) throw new Error(`index on unknown model ${index.model}`);
    const table = tableOf(model);
    const columns = index.fields.map((f) => columnOf(model, f.name));
    const name = index.dbName ?? `${table}_${index.type === 'id' ? '' : `${columns.join('_')}_`}${INDEX_SUFFIX[index.type]}`;
    const kind = index.type === 'id' ? 'primary' : index.type === 'unique' ? 'unique' : 'index';
    facts.push(`index ${name} ON ${table} ${kind} (${columns.join(', ')})`);
  }
  return facts.sort();
}

function tableOf(model: DmmfModel): string {
  return model.dbName ?? model.name;
}

function columnOf(model: DmmfModel, field: string): string {
  const f = model.fields.find((x) => x.name === field);
  if (!f) throw new Error(`unknown field ${model.name}.${field}`);
  return f.dbName ?? f.name;
}

/** Prisma's Postgres type for a scalar, named as pg_type does (timestamps with precision). */
function typeOf(f: DmmfField): string {
  if (f.kind === 'unsupported') return f.type;
  const native = f.nativeType?.[0];
  const args = f.nativeType?.[1] ?? [];
  switch (f.type) {
    case 'String':
      return native === 'Uuid' ? 'uuid' : native === 'VarChar' ? 'varchar' : 'text';
    case 'Int':
      return 'int4';
    case 'BigInt':
      return 'int8';
    case 'Boolean':
      return 'bool';
    case 'Json':
      return native === 'Json' ? 'json' : 'jsonb';
    case 'DateTime':
      if (native === 'Date') return 'date';
      return `${native === 'Timestamptz' ? 'timestamptz' : 'timestamp'}(${args[0] ?? '3'})`;
    default:
      return `unmapped:${f.type}`;
  }
}

function foreignKeyFact(dm: Datamodel, model: DmmfModel, f: DmmfField): string {
  const target = dm.models.find((m) => m.name === f.type);
  if (!target) throw new Error(`relation to unknown model ${f.type}`);
  const table = tableOf(model);
  const from = (f.relationFromFields ?? []).map((x) => columnOf(model, x));
  const to = (f.relationToFields ?? []).map((x) => columnOf(target, x));
  return `fk ${table}_${from.join('_')}_fkey ON ${table} (${from.join(', ')}) -> ${tableOf(target)} (${to.join(', ')})`;
}

/** The same facts, read from the catalog of a migrated database (Prisma's own table excluded). */
export async function factsFromDatabase(db: Pool | Client): Promise<string[]> {
  const facts: string[] = [];
  for (const q of [TABLES, COLUMNS, INDEXES, FOREIGN_KEYS]) {
    const { rows } = await db.query<{ fact: string }>(q);
    facts.push(...rows.map((r) => r.fact));
  }
  return facts.sort();
}

const USER_TABLE = `n.nspname = 'public' AND c.relname <> '_prisma_migrations'`;

const TABLES = `SELECT 'table ' || c.relname AS fact FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND ${USER_TABLE}`;

const COLUMNS = `
SELECT 'column ' || c.relname || '.' || a.attname || ' ' || t.typname ||
       CASE WHEN t.typname IN ('timestamp', 'timestamptz')
            THEN '(' || CASE WHEN a.atttypmod < 0 THEN '6' ELSE a.atttypmod::text END || ')' ELSE '' END ||
       CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE ' NULL' END AS fact
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_type t ON t.oid = a.atttypid
 WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND ${USER_TABLE}`;

// Partial indexes (with a WHERE) are left out: schema.prisma cannot say them, so they live in
// their migrations only, named in a comment on their model (read_approvals_pending_deadline_idx).
const INDEXES = `
SELECT 'index ' || i.relname || ' ON ' || c.relname || ' ' ||
       CASE WHEN x.indisprimary THEN 'primary' WHEN x.indisunique THEN 'unique' ELSE 'index' END || ' (' ||
       (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum) || ')' AS fact
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE x.indpred IS NULL AND ${USER_TABLE}`;

const FOREIGN_KEYS = `
SELECT 'fk ' || k.conname || ' ON ' || c.relname || ' (' ||
       (SELECT string_agg(a.attname, ', ' ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY u(attnum, ord)
          JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum) || ') -> ' || r.relname || ' (' ||
       (SELECT string_agg(a.attname, ', ' ORDER BY u.ord) FROM unnest(k.confkey) WITH ORDINALITY u(attnum, ord)
          JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum) || ')' AS fact
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE k.contype = 'f' AND ${USER_TABLE}`;

/** Facts on one side only; empty when schema.prisma and the database agree. */
export function diffFacts(expected: string[], actual: string[]): string[] {
  const a = new Set(actual);
  const e = new Set(expected);
  return [
    ...expected.filter((f) => !a.has(f)).map((f) => `missing in database: ${f}`),
    ...actual.filter((f) => !e.has(f)).map((f) => `not in schema.prisma: ${f}`),
  ];
}
