import type { Provider } from '@nestjs/common';
import type { IngressSettings } from './settings';
import type { Pool } from 'pg';
import { ApiKeyService, KeyLiveness } from '@hub/auth';
import { EventStore, EventSubscriber, PrismaClient, SecretStore, createPool, createPrismaClient, systemScope } from '@hub/event-store';
import { DailyEventBytes, HubQueues } from '@hub/queue';
import { KeyChanges } from './auth/key-changes';

export const INGRESS_CONFIG = Symbol('INGRESS_CONFIG');
export const PRISMA = Symbol('PRISMA');
export const PG_POOL = Symbol('PG_POOL');
export type { IngressSettings } from './settings';

/** Infrastructure objects shared by every controller and gateway of one ingress process. */
export function hubProviders(settings: IngressSettings): Provider[] {
  return [
    { provide: INGRESS_CONFIG, useValue: settings },
    // API keys are found before their tenant is known: system work (ApiKeyService scopes its one-tenant work itself).
    { provide: PRISMA, useFactory: () => createPrismaClient(settings.databaseUrl, systemScope('api-keys')) },
    { provide: ApiKeyService, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new ApiKeyService(prisma) },
    { provide: KeyLiveness, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new KeyLiveness(prisma) },
    {
      provide: KeyChanges,
      inject: [ApiKeyService, KeyLiveness],
      useFactory: async (keys: ApiKeyService, liveness: KeyLiveness) => {
        const changes = new KeyChanges(keys, liveness, settings);
        await changes.start();
        return changes;
      },
    },
    { provide: PG_POOL, useFactory: () => createPool(settings.databaseUrl, { max: settings.dbPoolSize }) },
    // What ingress appends counts towards the tenant's event bytes per day, as the workers' appends do.
    {
      provide: EventStore,
      inject: [PG_POOL, DailyEventBytes],
      useFactory: (pool: Pool, bytes: DailyEventBytes) => new EventStore(pool, { onAppended: (tenantId, n) => bytes.count(tenantId, n) }),
    },
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
    {
      provide: HubQueues,
      useFactory: () =>
        new HubQueues({
          redisUrl: settings.redisUrl,
          prefix: settings.queuePrefix,
          fair: settings.fairScheduling,
          traced: settings.telemetry.exporter !== 'none',
        }),
    },
  ];
}
