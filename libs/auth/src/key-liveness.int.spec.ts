import { randomUUID } from 'node:crypto';
import { createPrismaClient, PrismaClient, systemScope } from '@hub/event-store';
import { createTestDatabase } from '@hub/testing';
import { ApiKeyService } from './api-keys';
import { KeyLiveness } from './key-liveness';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'key_liveness' });
  prisma = createPrismaClient(db.url, systemScope('api-keys'));
});
afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe('KeyLiveness on Postgres', () => {
  it('tells which of many key ids still work, in batches; a revoked key drops out at once', async () => {
    const keys = new ApiKeyService(prisma);
    const liveness = new KeyLiveness(prisma);
    const t = await keys.createTenant('live');
    const doomed = await keys.createKey(t.tenantId, 'doomed');
    const ids = await Promise.all([t.apiKey, doomed.apiKey].map(async (k) => (await keys.verify(k))?.keyId as string));
    const unknown = Array.from({ length: 2500 }, () => randomUUID());
    expect(await liveness.liveKeyIds([...ids, ...unknown, ids[0]])).toEqual(new Set(ids));
    await keys.revoke(doomed.keyPrefix);
    expect(await liveness.liveKeyIds([...ids, ...unknown])).toEqual(new Set([ids[0]]));
    expect(await liveness.isLive(ids[0])).toBe(true);
    expect(await liveness.isLive(ids[1])).toBe(false);
  });
});
