import { randomUUID } from 'node:crypto';
import { isDomainError, type Recorded } from '@hub/domain';
import type { Pool } from 'pg';
import { appendInTransaction, checkExpectedVersion } from './append';
import { appendInOneStatement } from './append-function';
import { GroupCommit } from './group-commit';
import { exportStream, readChainPage, type ChainRow } from './audit';
import { ATTR, hubMetrics, withSpan, withoutChildSpans } from '@hub/telemetry';
import { DEFAULT_MAX_EVENT_BYTES, serialiseEvents, type SerialisedEvent } from './event-validation';
import { checkIds } from './ids';
import { EVENT_COLUMNS, SETTLED, toRecorded, type EventRow } from './rows';
import { asTenant } from './scope';
import { readCommittedHead, readHead } from './subscriber-queries';
import type { AppendOptions, AppendResult, EventStoreOptions, NewEvent, ReadAllOptions, ReadStreamOptions, ReadStreamResult, StoredEvent } from './types';

// Uncorrelated scalar subqueries run only when their CASE branch is taken: the count only for a new id.
const COUNT_UNLESS_EXISTS = {
  name: 'hub_count_unless_exists',
  text: `SELECT CASE WHEN EXISTS (SELECT 1 FROM streams WHERE tenant_id = $1 AND stream_id = $3) THEN NULL
              ELSE (SELECT count(*)::int FROM streams WHERE tenant_id = $1 AND starts_with(stream_id, $2)) END AS n`,
};

/** Every command decision and runner step reads a stream: a named statement, planned once per connection. */
const READ_STREAM = {
  name: 'hub_read_stream',
  text: `SELECT s.version, e.* FROM
           (SELECT COALESCE((SELECT version FROM streams WHERE tenant_id = $1 AND stream_id = $2), 0) AS version) s
         LEFT JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM events
            WHERE tenant_id = $1 AND stream_id = $2 AND stream_position > $3
            ORDER BY stream_position LIMIT $4
         ) e ON true`,
};

/**
 * The append-only log on Postgres. Every method takes the tenant and touches only that
 * tenant's rows, and runs as that tenant (row-level security: a query that forgot its filter
 * would still see nothing else). Uses `pg` directly (not Prisma): see this lib's README, "Why pg and not
 * Prisma here".
 */
export class EventStore {
  private readonly maxEventBytes: number;
  private readonly onAppended: EventStoreOptions['onAppended'];
  /** Appends that run nothing else in their transaction go through it (null: each alone). */
  private readonly commits: GroupCommit | null;

  constructor(
    private readonly pool: Pool,
    options: EventStoreOptions = {},
  ) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.onAppended = options.onAppended;
    this.commits = options.groupCommit === false ? null : new GroupCommit(pool, options.groupCommit);
  }

  /** Appends waiting for their group commit: how far Postgres is behind this process's writers. */
  get appendBacklog(): number {
    return this.commits?.backlog ?? 0;
  }

  /**
   * Appends `events` to a stream if it is at `expectedVersion`, atomically; otherwise throws
   * `DomainError('STREAM_VERSION_CONFLICT', …, { expected, actual })`. Oversized or non-JSON
   * events are refused (`EVENT_TOO_LARGE` / `INVALID_EVENT`) before the database is touched.
   */
  async append<E extends StoredEvent = StoredEvent>(
    tenantId: string,
    streamId: string,
    events: NewEvent<E>[],
    options: AppendOptions,
  ): Promise<AppendResult<E>> {
    checkIds(tenantId, streamId);
    // The hash chain covers the ids as text, and Postgres stores a uuid in lower case: hashed as
    // given, an id written in upper case would never verify (audit.int).
    tenantId = tenantId.toLowerCase();
    const serialised = serialiseEvents(events, this.maxEventBytes, randomUUID);
    if (serialised.length === 0) return this.appendNothing<E>(tenantId, streamId, options);
    return withSpan(
      'append',
      { [ATTR.TENANT_ID]: tenantId, 'hub.stream_id': streamId, 'hub.event_count': serialised.length, [ATTR.EVENT_TYPE]: serialised[0]?.type },
      async (span) => {
        const t0 = performance.now();
        const result = await withoutChildSpans(() => this.appendSerialised<E>(tenantId, streamId, serialised, options));
        const last = result.events[result.events.length - 1];
        span.setAttributes({
          [ATTR.STREAM_VERSION]: result.nextExpectedVersion,
          [ATTR.GLOBAL_POSITION]: last?.globalPosition,
          'hub.duplicate': result.duplicate,
        });
        const m = hubMetrics();
        m.appendDuration.record((performance.now() - t0) / 1000);
        if (!result.duplicate) {
          m.eventsAppended.add(result.events.length);
          this.reportBytes(tenantId, serialised);
        }
        return result;
      },
    );
  }

  private async appendSerialised<E extends StoredEvent>(
    tenantId: string,
    streamId: string,
    serialised: SerialisedEvent[],
    options: AppendOptions,
  ): Promise<AppendResult<E>> {
    // Nothing else in its transaction: one statement, one round trip (ADR 0026), shared with
    // whatever else is ready at the same moment (ADR 0030).
    if (!options.withinTransaction && !options.onBeforeCommit) {
      const req = { tenantId, streamId, events: serialised, options };
      return this.commits ? this.commits.append<E>(req) : appendInOneStatement<E>(this.pool, req);
    }
    const client = await this.pool.connect();
    // A checked-out client has no pool listener: Postgres going away between two statements of
    // the transaction would be an uncaught 'error' event that kills the process (the fault
    // suite's Postgres stop did). The next statement fails instead, and the append with it.
    const onLost = (): void => undefined;
    client.on('error', onLost);
    try {
      const result = await appendInTransaction<E>(client, { tenantId, streamId, events: serialised, options });
      client.off('error', onLost);
      client.release();
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.off('error', onLost);
      // After an unexpected failure the session may still hold the allocator's advisory lock
      // (e.g. cancelled mid-function): drop the connection rather than return it to the pool.
      client.release(isDomainError(e) ? undefined : toError(e));
      throw e;
    }
  }

  private reportBytes(tenantId: string, serialised: SerialisedEvent[]): void {
    if (!this.onAppended) return;
    try {
      this.onAppended(
        tenantId,
        serialised.reduce((n, e) => n + e.bytes, 0),
      );
    } catch {
      // The events are committed; a counter's failure is the counter's to report.
    }
  }

  /**
   * A page of a stream as the hash chain sees it: stored `data`/`metadata` texts, `hash` and
   * `prevHash` (the audit export; see audit.ts).
   */
  readChain(tenantId: string, streamId: string, afterPosition: number, limit: number): Promise<ChainRow[]> {
    return readChainPage(this.pool, tenantId, streamId, afterPosition, limit);
  }

  /** A stream's export lines, page by page, to `write` (see {@link exportStream}). */
  exportStream(
    tenantId: string,
    streamId: string,
    write: (line: string) => Promise<boolean | void>,
    o: { pageSize?: number; upTo?: number } = {},
  ): Promise<number> {
    return exportStream(this.pool, tenantId, streamId, write, o);
  }

  /** An empty append writes nothing but still answers the version check. */
  private async appendNothing<E extends StoredEvent>(tenantId: string, streamId: string, options: AppendOptions): Promise<AppendResult<E>> {
    const version = await this.streamVersion(tenantId, streamId);
    checkExpectedVersion(options.expectedVersion, version, streamId);
    return { nextExpectedVersion: version, events: [], duplicate: false };
  }

  /** The stream's version: the stream position of its last event, 0 when it has none. */
  async streamVersion(tenantId: string, streamId: string): Promise<number> {
    checkIds(tenantId, streamId);
    const { rows } = await asTenant(this.pool, tenantId).query<{ version: number }>('SELECT version FROM streams WHERE tenant_id = $1 AND stream_id = $2', [
      tenantId,
      streamId,
    ]);
    return rows[0]?.version ?? 0;
  }

  /**
   * How many of the tenant's streams start with `prefix`, unless `streamId` (null: an id not
   * chosen yet) already exists: null then. What a limit on new streams needs (the `sessions`
   * limit), with the count paid only by what would open a new one; a turn of an existing
   * session is one index lookup, whatever the tenant's size.
   */
  async countUnlessExists(tenantId: string, prefix: string, streamId: string | null): Promise<number | null> {
    checkIds(tenantId);
    const { rows } = await asTenant(this.pool, tenantId).query<{ n: number | null }>(COUNT_UNLESS_EXISTS, [tenantId, prefix, streamId]);
    return rows[0]?.n ?? null;
  }

  /**
   * Committed events of one stream after `fromVersion`, in stream order, and the stream's
   * version, read in one snapshot.
   */
  async readStream<E extends StoredEvent = StoredEvent>(tenantId: string, streamId: string, options: ReadStreamOptions = {}): Promise<ReadStreamResult<E>> {
    checkIds(tenantId, streamId);
    const { rows } = await asTenant(this.pool, tenantId).query<Partial<EventRow> & { version: number }>(READ_STREAM, [
      tenantId,
      streamId,
      options.fromVersion ?? 0,
      options.maxCount ?? null,
    ]);
    const version = rows[0]?.version ?? 0;
    const events = rows.filter((r) => r.global_position !== null).map((r) => toRecorded<E>(r as EventRow));
    return { version, events };
  }

  /**
   * The first event of each of `streamIds` that has one, by stream id, in one read (each an
   * index lookup): who opened a page of sessions, what each began with.
   */
  async firstEvents<E extends StoredEvent = StoredEvent>(tenantId: string, streamIds: readonly string[]): Promise<Map<string, Recorded<E>>> {
    checkIds(tenantId);
    if (streamIds.length === 0) return new Map();
    const { rows } = await asTenant(this.pool, tenantId).query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant_id = $1 AND stream_id = ANY($2::text[]) AND stream_position = 1`,
      [tenantId, streamIds],
    );
    return new Map(rows.map((r) => [r.stream_id, toRecorded<E>(r)]));
  }

  /**
   * The newest event of `type` in a stream, or null: one indexed read from the stream's end,
   * for a reader that needs only the last word of a long stream (the tenant's limits on its
   * admin stream, which every erasure's tombstone also grows).
   */
  async lastOfType<E extends StoredEvent = StoredEvent>(tenantId: string, streamId: string, type: string): Promise<Recorded<E> | null> {
    checkIds(tenantId, streamId);
    const { rows } = await asTenant(this.pool, tenantId).query<EventRow>(
      // Named: planned once per connection (with the events table's indexes and policies, planning it cost more than running it).
      {
        name: 'hub_last_of_type',
        text: `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant_id = $1 AND stream_id = $2 AND type = $3 ORDER BY stream_position DESC LIMIT 1`,
      },
      [tenantId, streamId, type],
    );
    return rows[0] ? toRecorded<E>(rows[0]) : null;
  }

  /**
   * A tenant's settled events after a global position, in global order. Settled events form
   * a prefix of the log that never changes, so `after` is a safe cursor: no gaps, no repeats.
   */
  async readAll<E extends StoredEvent = StoredEvent>(tenantId: string, options: ReadAllOptions): Promise<Recorded<E>[]> {
    checkIds(tenantId);
    const { rows } = await asTenant(this.pool, tenantId).query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events
        WHERE tenant_id = $1 AND global_position > $2 AND ${SETTLED}
        ORDER BY global_position LIMIT $3`,
      [tenantId, options.after, options.limit],
    );
    return rows.map((r) => toRecorded<E>(r));
  }

  /**
   * The global position of the tenant's last settled event (0 if none). A client cursor above
   * it was never handed out for this tenant: refuse it (`CURSOR_OUT_OF_RANGE`).
   */
  async headPosition(tenantId: string): Promise<number> {
    checkIds(tenantId);
    return readHead(this.pool, tenantId);
  }

  /**
   * The global position of the tenant's last committed event, settled or not: at least
   * {@link headPosition}, and above it while a transaction older than a committed append still
   * runs (that append's position is real but not readable as settled yet).
   */
  async committedHeadPosition(tenantId: string): Promise<number> {
    checkIds(tenantId);
    return readCommittedHead(this.pool, tenantId);
  }

  /** The tenant's streams whose id starts with `prefix`, most recently changed first. */
  async listStreams(tenantId: string, options: { prefix?: string; limit?: number } = {}): Promise<StreamInfo[]> {
    checkIds(tenantId);
    const { rows } = await asTenant(this.pool, tenantId).query<{ stream_id: string; version: number; created_at: Date; updated_at: Date }>(
      `SELECT stream_id, version, created_at, updated_at FROM streams
        WHERE tenant_id = $1 AND starts_with(stream_id, $2)
        ORDER BY updated_at DESC, stream_id LIMIT $3`,
      [tenantId, options.prefix ?? '', Math.min(options.limit ?? 100, 1000)],
    );
    return rows.map((r) => ({ streamId: r.stream_id, version: r.version, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString() }));
  }
}

/** One row of {@link EventStore.listStreams}. */
export interface StreamInfo {
  streamId: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
