import type { OnModuleDestroy, Provider } from '@nestjs/common';
import { ApprovalFeed, ReadModels } from '@hub/projections';
import type { Pool } from 'pg';
import { PG_POOL, type IngressSettings } from '../hub.providers';

/** Closes the feed's LISTEN connection with the application. */
class ClosingApprovalFeed extends ApprovalFeed implements OnModuleDestroy {
  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}

/** The read models' query side and live approval feed, on the process's pool. */
export function readModelProviders(settings: IngressSettings): Provider[] {
  return [
    { provide: ReadModels, inject: [PG_POOL], useFactory: (pool: Pool) => new ReadModels(pool) },
    { provide: ApprovalFeed, inject: [PG_POOL], useFactory: (pool: Pool) => new ClosingApprovalFeed(pool, settings.databaseUrl) },
  ];
}
