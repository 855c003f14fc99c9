import type { ConnectionUse } from '@hub/event-store';
import { PROJECTION_CONNECTIONS } from '@hub/projections';

/** Every Postgres connection one worker may open (docs/connections.md): none of it grows with the turns in flight. */
export function workerConnections(dbPoolSize: number): ConnectionUse[] {
  return [
    { what: 'in the main pool (HUB_DB_POOL_SIZE)', connections: dbPoolSize },
    { what: 'for the projections (their pool, leadership lock and LISTEN)', connections: PROJECTION_CONNECTIONS },
  ];
}
