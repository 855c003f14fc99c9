import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type QueryConfig, type QueryResult } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { dependencyState } from '@hub/telemetry';
import { TENANT_SETTING, queryScoped, tenantScope, type DbScope } from './scope';

export { PrismaClient };
export type { Prisma } from './generated/prisma/client';

/**
 * Connections of a Prisma client's pool: Prisma holds tenants and API keys only (a key is read
 * once, then kept until it changes), so it needs few; counted in docs/connections.md.
 */
export const PRISMA_POOL_SIZE = 3;

/**
 * The pool under a Prisma client: each statement Prisma sends outside a transaction (its adapter
 * calls `pool.query(config)`) goes with the scope's setting, in the same round trip (scope.ts).
 * A transaction's statements go through a client of its own and carry no scope until the
 * transaction sets one ({@link setPrismaTenant}).
 */
function scopedPool(connectionString: string, scope: DbScope): Pool {
  const pool = reportingErrors(new Pool({ connectionString, max: PRISMA_POOL_SIZE }));
  // Prisma's adapter uses the config form only; anything else is refused rather than sent unscoped.
  const query = (config: QueryConfig, values?: unknown): Promise<QueryResult> => {
    if (typeof config !== 'object' || values !== undefined || 'submit' in config) return Promise.reject(new Error('a scoped pool takes a query config only'));
    return queryScoped(pool, scope, config);
  };
  pool.query = query as unknown as Pool['query'];
  return pool;
}

/**
 * A Prisma client on the `pg` driver adapter with a pool of its own, whose statements run under
 * `scope` (row-level security). Prisma holds tenants and API keys, which are found before their
 * tenant is known: its clients are system work (`api-keys`), and work for one tenant opens a
 * transaction that says so ({@link setPrismaTenant}).
 */
export function createPrismaClient(connectionString: string, scope: DbScope): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(scopedPool(connectionString, scope), { disposeExternalPool: true }) });
}

/** A Prisma transaction client, as far as {@link setPrismaTenant} needs it. */
export interface RawExecutor {
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>;
}

/**
 * Makes the rest of a Prisma transaction act for `tenantId` only (its first statement, inside
 * `prisma.$transaction(async (tx) => …)`): one tenant's work on a client made for system work.
 */
export async function setPrismaTenant(tx: RawExecutor, tenantId: string): Promise<void> {
  const { tenantId: id } = tenantScope(tenantId) as { tenantId: string };
  await tx.$executeRaw`SELECT set_config(${TENANT_SETTING}, ${id}, true)`;
}

/** Options of {@link createPool}. */
export interface PoolOptions {
  max?: number;
  /** Where to report errors of idle connections (which would otherwise crash the process). */
  onError?: (error: Error) => void;
}

/** A `pg` pool for the event store, with its connections' errors reported, not thrown. */
export function createPool(connectionString: string, options: PoolOptions = {}): Pool {
  return reportingErrors(new Pool({ connectionString, max: options.max ?? 10 }), options.onError);
}

/**
 * A pool whose connections' errors are reported, never thrown. An idle client's error is
 * Postgres going away; a new connection is it answering (again); the process's Postgres state
 * logs each change once (no line per retry). A client that is checked out when its server goes
 * (a failover, a restart) emits `error` too, and `pg` leaves it no listener while it is checked
 * out: with none, that event crashed the process. Its holder still sees the failure, as its
 * query's rejection.
 */
function reportingErrors(pool: Pool, onError?: (error: Error) => void): Pool {
  pool.on('error', (e: Error) => {
    dependencyState('postgres').down(e);
    onError?.(e);
  });
  pool.on('connect', (client) => {
    dependencyState('postgres').up();
    client.on('error', (e: Error) => dependencyState('postgres').down(e));
  });
  return pool;
}
