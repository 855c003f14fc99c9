import { Client } from 'pg';
import { createPrismaClient, PrismaClient, systemScope } from '@hub/event-store';
import { createTestDatabase } from '@hub/testing';
import { ApiKeyService, bearerToken } from './api-keys';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let prisma: PrismaClient;
let keys: ApiKeyService;

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'auth' });
  prisma = createPrismaClient(db.url, systemScope('api-keys'));
  keys = new ApiKeyService(prisma);
});
afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe('ApiKeyService on Postgres', () => {
  it('tells hub_keys when a key is revoked, deleted or changed (role, name, hash), not when it is merely used', async () => {
    const listener = new Client({ connectionString: db.ownerUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => void (n.channel === 'hub_keys' && heard.push(n.payload ?? '')));
    await listener.query('LISTEN hub_keys');
    try {
      const t = await keys.createTenant('noisy');
      const id = (await prisma.apiKey.findUnique({ where: { prefix: t.keyPrefix } }))?.id as string;
      await keys.verify(t.apiKey); // records its use (last_used_at)
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);
      await keys.revoke(t.keyPrefix);
      const other = await keys.createKey(t.tenantId, 'second');
      const otherId = (await prisma.apiKey.findUnique({ where: { prefix: other.keyPrefix } }))?.id as string;
      // The apps may not delete keys; an operator (the owner) may, and is heard all the same.
      await listener.query('DELETE FROM api_keys WHERE id = $1', [otherId]);
      // An operator's SQL that changes what a verified key stands for (its role, its name, its
      // secret's hash) must reach every ingress too: a demoted key must not keep its old role.
      const third = await keys.createKey(t.tenantId, 'third');
      const thirdId = (await prisma.apiKey.findUnique({ where: { prefix: third.keyPrefix } }))?.id as string;
      await listener.query(`UPDATE api_keys SET role = 'viewer' WHERE id = $1`, [thirdId]);
      await listener.query(`UPDATE api_keys SET name = 'renamed' WHERE id = $1`, [thirdId]);
      await listener.query(`UPDATE api_keys SET hash = repeat('0', 64) WHERE id = $1`, [thirdId]);
      await keys.verify(third.apiKey); // a use alone is still not a change
      for (const deadline = Date.now() + 5_000; heard.length < 5 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([id, otherId, thirdId, thirdId, thirdId]);
    } finally {
      await listener.end();
    }
  });

  it('creates a tenant whose key resolves to it, storing only a hash and the visible prefix', async () => {
    const t = await keys.createTenant('acme');
    expect(t.apiKey.startsWith(`${t.keyPrefix}_`)).toBe(true);
    expect(await keys.verify(t.apiKey)).toEqual(expect.objectContaining({ tenantId: t.tenantId, keyPrefix: t.keyPrefix }));
    const row = await prisma.apiKey.findUnique({ where: { prefix: t.keyPrefix } });
    expect(row?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(t.apiKey.slice(t.keyPrefix.length + 1));
  });

  it('refuses malformed, unknown, tampered and revoked keys', async () => {
    const t = await keys.createTenant('beta');
    const secret = t.apiKey.slice(t.keyPrefix.length + 1);
    const tampered = `${t.keyPrefix}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [undefined, '', 'hub_', 'Bearer x', tampered, `hub_zzzzzzzzzzzz_${secret}`]) {
      expect(await keys.verify(bad)).toBeNull();
    }
    expect(await keys.revoke(t.keyPrefix)).toBe(true);
    expect(await keys.revoke(t.keyPrefix)).toBe(false);
    expect(await keys.verify(t.apiKey)).toBeNull();
  });

  it("keeps tenants apart: a second key of one tenant never resolves to another's", async () => {
    const a = await keys.createTenant('a');
    const b = await keys.createTenant('b');
    const a2 = await keys.createKey(a.tenantId, 'second');
    expect((await keys.verify(a2.apiKey))?.tenantId).toBe(a.tenantId);
    expect((await keys.verify(b.apiKey))?.tenantId).toBe(b.tenantId);
  });

  it("lists a tenant's keys with their prefixes and never their secrets", async () => {
    const t = await keys.createTenant('lister');
    const second = await keys.createKey(t.tenantId, 'ci');
    await keys.revoke(second.keyPrefix);
    const listed = await keys.listKeys(t.tenantId);
    expect(listed).toEqual([
      { prefix: t.keyPrefix, name: 'default', role: 'admin', createdAt: expect.any(Date), expiresAt: null, lastUsedAt: null, revokedAt: null },
      { prefix: second.keyPrefix, name: 'ci', role: 'operator', createdAt: expect.any(Date), expiresAt: null, lastUsedAt: null, revokedAt: expect.any(Date) },
    ]);
    expect(JSON.stringify(listed)).not.toContain(second.apiKey.slice(second.keyPrefix.length + 1));
  });

  it('names a bad or unknown tenant id plainly (not a database error)', async () => {
    await expect(keys.createKey('not-a-uuid', 'x')).rejects.toThrow('"not-a-uuid" is not a tenant id (a UUID, as `tenant list` prints)');
    await expect(keys.createKey('00000000-0000-4000-8000-000000000000', 'x')).rejects.toThrow('no tenant 00000000-0000-4000-8000-000000000000');
    await expect(keys.listKeys('nope')).rejects.toThrow(/is not a tenant id/);
  });

  it('parses only well-formed bearer headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
