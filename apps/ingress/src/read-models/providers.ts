import type { OnModuleDestroy, Provider } from '@nestjs/common';
import { ReadModelFeed, ReadModels } from '@hub/projections';
import type { Pool } from 'pg';
import { PG_POOL, type IngressSettings } from '../hub.providers';
import { LaggingReads } from './lagging-reads';

/** Closes the feed's LISTEN connection with the application. */
class ClosingReadModelFeed extends ReadModelFeed implements OnModuleDestroy {
  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}

/** The read models' query side and their live feed (approvals, sessions), on the process's pool. */
export function readModelProviders(settings: IngressSettings): Provider[] {
  return [
    { provide: ReadModels, inject: [PG_POOL], useFactory: (pool: Pool) => new ReadModels(pool) },
    { provide: ReadModelFeed, inject: [PG_POOL], useFactory: (pool: Pool) => new ClosingReadModelFeed(pool, settings.databaseUrl) },
    // The lists that may read a standby (HUB_READ_DATABASE_URL).
    { provide: LaggingReads, inject: [PG_POOL], useFactory: (pool: Pool) => LaggingReads.on(pool, settings) },
  ];
}
