import { readFileSync } from 'node:fs';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';
import { readDatamodel, SCHEMA_PATH } from './testing/prisma-dmmf';
import { diffFacts, factsFromDatabase, factsFromDatamodel } from './testing/schema-compare';

// schema.prisma is the model; prisma/migrations is hand-written SQL. This proves they describe
// the same tables, and that the comparison notices a change on either side.
describe('schema.prisma and prisma/migrations', () => {
  let db: ScratchDatabase;
  let expected: string[];

  beforeAll(async () => {
    db = await createScratchDatabase('schema_agreement');
    expected = factsFromDatamodel(readDatamodel());
  });
  afterAll(() => db.drop());

  it('describe the same tables, columns, keys, indexes and foreign keys', async () => {
    const actual = await factsFromDatabase(db.ownerPool);
    expect(diffFacts(expected, actual)).toEqual([]);
    // Spot checks that the facts are the real thing, not two empty lists.
    expect(actual).toEqual(
      expect.arrayContaining([
        'column events.transaction_id xid8 NOT NULL',
        'column api_keys.revoked_at timestamptz(3) NULL',
        'index events_tenant_id_stream_id_stream_position_key ON events unique (tenant_id, stream_id, stream_position)',
        'index events_transaction_id_global_position_idx ON events index (transaction_id, global_position)',
        'fk api_keys_tenant_id_fkey ON api_keys (tenant_id) -> tenants (id)',
      ]),
    );
    expect(expected).toEqual(expect.arrayContaining(['table events', 'table streams', 'table tenants', 'table api_keys', 'table idempotency_keys']));
  });

  it('notices an extra column, a missing index and a changed type in the database', async () => {
    const client = await db.ownerPool.connect();
    try {
      await client.query('BEGIN');
      await client.query('ALTER TABLE events ADD COLUMN extra text');
      await client.query('DROP INDEX events_tenant_id_global_position_idx');
      await client.query('ALTER TABLE streams ALTER COLUMN version TYPE bigint');
      await client.query('CREATE TABLE stray (id int)');
      const diff = diffFacts(expected, await factsFromDatabase(client));
      expect(diff).toEqual(
        expect.arrayContaining([
          'not in schema.prisma: column events.extra text NULL',
          'missing in database: index events_tenant_id_global_position_idx ON events index (tenant_id, global_position)',
          'missing in database: column streams.version int4 NOT NULL',
          'not in schema.prisma: column streams.version int8 NOT NULL',
          'not in schema.prisma: table stray',
        ]),
      );
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('notices a change in schema.prisma', async () => {
    const schema = readFileSync(SCHEMA_PATH, 'utf8');
    const changed = schema
      .replace('revokedAt  DateTime? @map("revoked_at")', 'revokedAt  DateTime  @map("revoked_at")')
      .replace('  @@map("streams")', '  note String?\n  @@map("streams")');
    expect(changed).not.toEqual(schema);
    const diff = diffFacts(factsFromDatamodel(readDatamodel(changed)), await factsFromDatabase(db.ownerPool));
    expect(diff.sort()).toEqual(
      [
        'missing in database: column api_keys.revoked_at timestamptz(3) NOT NULL',
        'missing in database: column streams.note text NULL',
        'not in schema.prisma: column api_keys.revoked_at timestamptz(3) NULL',
      ].sort(),
    );
  });
});
