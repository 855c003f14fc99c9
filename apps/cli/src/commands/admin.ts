import { ApiKeyService } from '@hub/auth';
import { createPrismaClient, systemScope } from '@hub/event-store';

/** An ApiKeyService for one command, on a Prisma client of its own. */
export async function withKeys<T>(databaseUrl: string, f: (keys: ApiKeyService) => Promise<T>): Promise<T> {
  // Tenants and keys: system work (ApiKeyService scopes its one-tenant work itself).
  const prisma = createPrismaClient(databaseUrl, systemScope('api-keys'));
  try {
    return await f(new ApiKeyService(prisma as never));
  } finally {
    await prisma.$disconnect();
  }
}
