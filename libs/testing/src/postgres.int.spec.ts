import { Client } from 'pg';
import { connectToServer, createTestDatabase } from './postgres';

async function databaseExists(name: string): Promise<boolean> {
  const c = await connectToServer();
  try {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rowCount === 1;
  } finally {
    await c.end();
  }
}

describe('createTestDatabase', () => {
  it('creates a migrated database of its own and drops it', async () => {
    const a = await createTestDatabase({ prefix: 'testing_pg' });
    const b = await createTestDatabase({ prefix: 'testing_pg', migrate: false });
    try {
      expect(a.name).not.toBe(b.name);
      expect(a.url).toContain(`/${a.name}`);
      await a.prisma.tenant.create({ data: { id: '6f1c2b7e-0d1a-4c2e-9a55-0c8f6f1f2a10', name: 'acme' } });
      expect(await a.prisma.tenant.count()).toBe(1);
      const c = new Client({ connectionString: b.url });
      await c.connect();
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
      await c.end();
      expect(rows[0].n).toBe(0);
    } finally {
      await a.drop();
      await b.drop();
    }
    expect(await databaseExists(a.name)).toBe(false);
    expect(await databaseExists(b.name)).toBe(false);
  });

  it('refuses a prefix that is not a plain identifier', async () => {
    await expect(createTestDatabase({ prefix: 'x"; DROP' })).rejects.toThrow(/prefix/);
  });
});
