import type { Provider } from '@nestjs/common';
import type { IngressSettings } from './settings';
import type { Pool } from 'pg';
import { ApiKeyService, KeyLiveness } from '@hub/auth';
import { EventStore, EventSubscriber, PrismaClient, SecretStore, createPool, createPrismaClient } from '@hub/event-store';
import { HubQueues } from '@hub/queue';

export const INGRESS_CONFIG = Symbol('INGRESS_CONFIG');
export const PRISMA = Symbol('PRISMA');
export const PG_POOL = Symbol('PG_POOL');
export type { IngressSettings } from './settings';

/** Infrastructure objects shared by every controller and gateway of one ingress process. */
export function hubProviders(settings: IngressSettings): Provider[] {
  return [
    { provide: INGRESS_CONFIG, useValue: settings },
    { provide: PRISMA, useFactory: () => createPrismaClient(settings.databaseUrl) },
    { provide: ApiKeyService, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new ApiKeyService(prisma) },
    { provide: KeyLiveness, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new KeyLiveness(prisma) },
    { provide: PG_POOL, useFactory: () => createPool(settings.databaseUrl, { max: 20 }) },
    { provide: EventStore, inject: [PG_POOL], useFactory: (pool: Pool) => new EventStore(pool) },
    { provide: SecretStore, inject: [PG_POOL], useFactory: (pool: Pool) => new SecretStore(pool) },
    {
      provide: EventSubscriber,
      inject: [PG_POOL],
      useFactory: async (pool: Pool) => {
        const s = new EventSubscriber(pool, { connectionString: settings.databaseUrl });
        await s.start();
        return s;
      },
    },
    { provide: HubQueues, useFactory: () => new HubQueues({ redisUrl: settings.redisUrl, prefix: settings.queuePrefix }) },
  ];
}
