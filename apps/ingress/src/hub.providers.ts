import type { Provider } from '@nestjs/common';
import type { Pool } from 'pg';
import { ApiKeyService } from '@hub/auth';
import { IngressConfig, mcpStdioAllowlist, parseConfig, queuePrefix } from '@hub/config';
import { EventStore, EventSubscriber, PrismaClient, createPool, createPrismaClient } from '@hub/event-store';
import { HubQueues } from '@hub/queue';

export const INGRESS_CONFIG = Symbol('INGRESS_CONFIG');
export const PRISMA = Symbol('PRISMA');
export const PG_POOL = Symbol('PG_POOL');

/** The settings ingress code reads; derived once from the parsed environment. */
export interface IngressSettings {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  maxFrameBytes: number;
  maxBodyBytes: number;
  commandTimeoutMs: number;
  /** Command prefixes a tenant's stdio MCP server may run (`HUB_MCP_STDIO_COMMANDS`); empty: none. */
  mcpStdioAllowlist: string[][];
}

export function loadIngressSettings(env?: NodeJS.ProcessEnv): IngressSettings {
  const c = parseConfig(IngressConfig, env);
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    queuePrefix: queuePrefix(c),
    maxFrameBytes: c.HUB_MAX_FRAME_BYTES,
    maxBodyBytes: c.HUB_MAX_BODY_BYTES,
    commandTimeoutMs: c.HUB_COMMAND_TIMEOUT_MS,
    mcpStdioAllowlist: mcpStdioAllowlist(c),
  };
}

/** Infrastructure objects shared by every controller and gateway of one ingress process. */
export function hubProviders(settings: IngressSettings): Provider[] {
  return [
    { provide: INGRESS_CONFIG, useValue: settings },
    { provide: PRISMA, useFactory: () => createPrismaClient(settings.databaseUrl) },
    { provide: ApiKeyService, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new ApiKeyService(prisma) },
    { provide: PG_POOL, useFactory: () => createPool(settings.databaseUrl, { max: 20 }) },
    { provide: EventStore, inject: [PG_POOL], useFactory: (pool: Pool) => new EventStore(pool) },
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
