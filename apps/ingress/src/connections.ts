import { PRISMA_POOL_SIZE, type ConnectionUse } from '@hub/event-store';

/**
 * Every Postgres connection one ingress may open (docs/connections.md), whatever the sockets it
 * holds: the LISTENs are the event feed's, the key changes' and the read models' feed's.
 */
export function ingressConnections(dbPoolSize: number): ConnectionUse[] {
  return [
    { what: 'in the main pool (HUB_DB_POOL_SIZE)', connections: dbPoolSize },
    { what: "in the API keys' pool", connections: PRISMA_POOL_SIZE },
    { what: 'for LISTEN (events, key changes, read models)', connections: 3 },
  ];
}
