import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { dependencyState } from '@hub/telemetry';

export { PrismaClient };
export type { Prisma } from './generated/prisma/client';

/**
 * A Prisma client on the `pg` driver adapter. Pass a `Pool` to share connections with the
 * {@link EventStore}; pass a connection string to give Prisma its own pool.
 */
export function createPrismaClient(connection: string | Pool): PrismaClient {
  const adapter = typeof connection === 'string' ? new PrismaPg({ connectionString: connection }) : new PrismaPg(connection);
  return new PrismaClient({ adapter });
}

/** Options of {@link createPool}. */
export interface PoolOptions {
  max?: number;
  /** Where to report errors of idle connections (which would otherwise crash the process). */
  onError?: (error: Error) => void;
}

/** A `pg` pool for the event store, with idle-connection errors reported, not thrown. */
export function createPool(connectionString: string, options: PoolOptions = {}): Pool {
  const pool = new Pool({ connectionString, max: options.max ?? 10 });
  // An idle client's error is Postgres going away; a new connection is it answering (again).
  // The process's Postgres state logs each change once (no line per retry).
  pool.on('error', (e: Error) => {
    dependencyState('postgres').down(e);
    options.onError?.(e);
  });
  pool.on('connect', () => dependencyState('postgres').up());
  return pool;
}
