import { Pool, Query, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import { isUuid } from './ids';

/**
 * The transaction-local settings the row-level security policies read (migration
 * `…_row_level_security`, ADR 0023). A statement whose transaction set neither sees no rows.
 */
export const TENANT_SETTING = 'hub.tenant_id';
export const SCOPE_SETTING = 'hub.scope';

/**
 * Work that reads or writes rows of every tenant, by name: the only code paths allowed to, each
 * saying so where it queries (`asSystem(pool, 'projections')`). Grep for the name to audit one.
 */
export type SystemWork =
  /** Find a presented API key before its tenant is known; create and list tenants. */
  | 'api-keys'
  /** Find the identity provider of a presented access token (by its issuer) before its tenant is known (issue 24). */
  | 'identity'
  /** The shared tail read that hands each subscribed tenant its new events. */
  | 'subscriber'
  /** Read models: the log in global order, rows of every tenant, checkpoints and lag. */
  | 'projections'
  /** Turns the log says run and no queue holds, across tenants. */
  | 'reconciler'
  /** `hub audit verify` / `hub audit heads` without `--tenant`. */
  | 'audit'
  /** `hub retention run`: which tenants there are. */
  | 'retention'
  /** `hub replay --all`: every tenant's sessions. */
  | 'replay'
  /** Gauges and `hub status`: counts over every tenant. */
  | 'metrics'
  /** The schedule ticker: which schedules of every tenant are due (each is then handled in its own tenant). */
  | 'schedules'
  /** The webhook outbox (the log in global order into every tenant's messages) and its deliveries. */
  | 'webhooks';

/** Whose rows a statement may see: one tenant's, or every tenant's for named {@link SystemWork}. */
export type DbScope = { readonly tenantId: string } | { readonly system: SystemWork };

/** One tenant's rows only. */
export function tenantScope(tenantId: string): DbScope {
  if (!isUuid(tenantId)) throw new Error('a tenant scope needs a tenant id (a UUID)');
  return { tenantId };
}

/** Every tenant's rows, for the work named. */
export function systemScope(work: SystemWork): DbScope {
  return { system: work };
}

/**
 * A statement: its text, or a named one (`{ name, text }`), which each connection parses and
 * plans once and then only binds (for the statements every turn runs; pg's named statements).
 */
export type Statement = string | { name: string; text: string };

/** A pool whose statements each run under one scope. */
export interface ScopedDb {
  query<R extends QueryResultRow = QueryResultRow>(statement: Statement, values?: unknown[]): Promise<QueryResult<R>>;
}

/** `pool`'s statements as `tenantId`: each sees and writes that tenant's rows only. */
export function asTenant(pool: Pool, tenantId: string): ScopedDb {
  return scoped(pool, tenantScope(tenantId));
}

/** `pool`'s statements as system work: every tenant's rows. Only the paths {@link SystemWork} lists. */
export function asSystem(pool: Pool, work: SystemWork): ScopedDb {
  return scoped(pool, systemScope(work));
}

/**
 * Each statement goes with the scope's `set_config(…, true)` in front of it, in the same round
 * trip: both are sent before one Sync, and the extended query protocol runs everything up to a
 * Sync as one implicit transaction, so the setting holds for the statement and ends with it.
 */
export function scoped(pool: Pool, scope: DbScope): ScopedDb {
  return {
    query: <R extends QueryResultRow>(statement: Statement, values: unknown[] = []) =>
      queryScoped<R>(pool, scope, typeof statement === 'string' ? { text: statement, values } : { ...statement, values }),
  };
}

/** {@link scoped} for a whole pg query config (row mode, type parsers: what Prisma's adapter sends). */
export async function queryScoped<R extends QueryResultRow>(pool: Pool, scope: DbScope, config: QueryConfig): Promise<QueryResult<R>> {
  // pg's own Pool.query (not an override of it): it hands a Query to a client and answers with
  // what the client's callback got, releasing the client either way.
  const poolQuery = Pool.prototype.query as unknown as (this: Pool, q: Query) => Promise<unknown>;
  return lastResult<R>(await poolQuery.call(pool, new ScopedQuery(scope, config)));
}

/**
 * Opens a transaction under `scope`: `BEGIN` and the setting go as one simple query, so this
 * costs the round trip `BEGIN` alone costs. The tenant id is a checked UUID, safe to inline.
 */
export async function beginAs(client: PoolClient, scope: DbScope): Promise<void> {
  await client.query(`BEGIN; ${scopeStatement(scope)}`);
}

/** The statement that sets `scope` for the rest of its transaction, literal (no parameters). */
export function scopeStatement(scope: DbScope): string {
  if ('system' in scope) return `SELECT set_config('${SCOPE_SETTING}', 'system', true)`;
  if (!isUuid(scope.tenantId)) throw new Error('a tenant scope needs a tenant id (a UUID)');
  return `SELECT set_config('${TENANT_SETTING}', '${scope.tenantId}', true)`;
}

/** The parts of pg's connection a query writes its messages with (pg's own Query uses them; its types do not say). */
interface Wire {
  parse(m: { text: string; name?: string }): void;
  bind(m: { values: string[]; statement?: string }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string }): void;
  /** Named statements this connection has sent a parse for, by name (pg's own bookkeeping). */
  submittedNamedStatements: Record<string, string>;
  parsedStatements: Record<string, string>;
}

/** The scope's `set_config`, a named statement: parsed once per connection, then only bound. */
const SCOPE_STATEMENT = { name: 'hub_scope', text: 'SELECT set_config($1, $2, true)' };

/**
 * A pg Query that writes the scope's `set_config` (parse, bind, describe, execute) before its own
 * messages and lets pg's Query send the rest and one Sync. pg collects the two results as it does
 * for a multi-statement query; {@link lastResult} keeps the statement's own.
 */
class ScopedQuery extends Query {
  constructor(
    private readonly scope: DbScope,
    config: QueryConfig,
  ) {
    // Extended mode even without parameters: a simple query would end the transaction first.
    super({ ...config, queryMode: 'extended' } as QueryConfig);
  }

  // pg calls prepare() inside submit(), with the socket corked: everything leaves in one write.
  prepare(connection: Wire): void {
    const tenant = 'system' in this.scope ? null : this.scope.tenantId;
    const { name, text } = SCOPE_STATEMENT;
    if (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined) {
      connection.parse({ name, text });
      // pg records a name as parsed only for the query it sends itself: this one stays "submitted",
      // which is as good (it is never parsed again on this connection).
      connection.submittedNamedStatements[name] = text;
    }
    connection.bind({ statement: name, values: tenant === null ? [SCOPE_SETTING, 'system'] : [TENANT_SETTING, tenant] });
    connection.describe({ type: 'P', name: '' });
    connection.execute({ portal: '' });
    (Query.prototype as unknown as { prepare(c: Wire): void }).prepare.call(this, connection);
  }
}

function lastResult<R extends QueryResultRow>(res: unknown): QueryResult<R> {
  const all = (Array.isArray(res) ? res : [res]) as QueryResult<R>[];
  return all[all.length - 1] as QueryResult<R>;
}
