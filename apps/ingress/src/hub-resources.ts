import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { EventSubscriber, type PrismaClient } from '@hub/event-store';
import { HubQueues } from '@hub/queue';
import { PG_POOL, PRISMA } from './hub.providers';

/**
 * Closes the shared infrastructure of `hubProviders` when the application closes: the live
 * subscription's LISTEN connection and timers, the queues' Redis connections, Prisma and the pool,
 * in that order (the subscriber reads through the pool). It runs at application shutdown, after
 * every module's own destroy hooks and after the HTTP server and sockets have closed, so nothing
 * still needs them. Without it a closed application kept polling Postgres (an in-process test saw
 * its timers fire after the test environment was gone).
 */
@Injectable()
export class HubResources implements OnApplicationShutdown {
  constructor(
    private readonly subscriber: EventSubscriber,
    private readonly queues: HubQueues,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber.close();
    await this.queues.close();
    await this.prisma.$disconnect();
    await this.pool.end();
  }
}
