import { DomainError, type Recorded } from '@hub/domain';
import type { PoolClient } from 'pg';
import type { SerialisedEvent } from './event-validation';
import { eventHash } from './hash-chain';
import { constraintOf, errorCode } from './pg-errors';
import { EVENT_COLUMNS, toPosition, toRecorded, type EventRow } from './rows';
import { TENANT_SETTING, type ScopedDb } from './scope';
import type { AppendOptions, AppendResult, ExpectedVersion, StoredEvent } from './types';

/** The NOTIFY channel appends signal on commit; the payload is the last global position. */
export const EVENTS_CHANNEL = 'hub_events';

/** What an idempotency row remembers: enough to re-read the first append's events. */
interface IdempotentResult {
  firstGlobalPosition: number;
  count: number;
}

export interface AppendRequest {
  tenantId: string;
  streamId: string;
  events: SerialisedEvent[];
  options: AppendOptions;
}

/**
 * Advisory lock class of the per-stream append lock (the two-key form, so it never meets the
 * allocator's one-key lock or Prisma's). A hash collision only serialises two streams' appends.
 */
const STREAM_LOCK_CLASS = 4849;

/**
 * One append transaction on a dedicated connection. Statement order matters:
 * 0. the stream's advisory lock comes first, and sets the tenant the transaction acts for (row-level
 *    security: every later statement sees and writes that tenant's rows only; folded into this
 *    statement, so it costs no round trip). Appends to one stream take their global positions
 *    in the order they take stream positions, so stream order and global order agree whatever
 *    the expected version (`'any'` and `'exists'` do not conflict, so without it one could
 *    allocate, be overtaken by a later allocation at the stream lock, and land after it). An
 *    advisory lock assigns no xid, so a waiter holds back no reader;
 * 1. `hub_allocate_positions` is the first write, so the xid is assigned under the allocator lock;
 * 2. the idempotency row comes before the stream lock, so an identical racing append waits for
 *    the first to commit and then returns its result instead of reporting a version conflict;
 * 3. the stream row is locked (created if new) and the expected version checked;
 * 4. events, the new version and the NOTIFY go out in one statement.
 */
export async function appendInTransaction<E extends StoredEvent>(client: PoolClient, req: AppendRequest): Promise<AppendResult<E>> {
  const { tenantId, streamId, events, options } = req;
  await client.query('BEGIN');
  await client.query(
    `SELECT pg_advisory_xact_lock(${STREAM_LOCK_CLASS}, hashtext($1::text || '/' || $2::text)), set_config('${TENANT_SETTING}', $1::text, true)`,
    [tenantId, streamId],
  );
  const { rows } = await client.query<{ first: string }>('SELECT hub_allocate_positions($1)::text AS first', [events.length]);
  const first = toPosition(rows[0].first);
  if (options.idempotencyKey !== undefined) {
    const claimed = await claimIdempotencyKey(client, req, { firstGlobalPosition: first, count: events.length });
    if (!claimed) {
      const result = await readIdempotentEvents<E>(client, tenantId, options.idempotencyKey);
      await client.query('ROLLBACK');
      return result;
    }
  }
  const { version: current, lastHash } = await lockStream(client, tenantId, streamId);
  checkExpectedVersion(options.expectedVersion, current, streamId);
  const recorded = await insertEvents<E>(client, req, first, current, lastHash);
  await options.withinTransaction?.(client);
  await options.onBeforeCommit?.();
  await client.query('COMMIT');
  return { nextExpectedVersion: current + events.length, events: recorded, duplicate: false };
}

async function claimIdempotencyKey(client: PoolClient, req: AppendRequest, result: IdempotentResult): Promise<boolean> {
  // ON CONFLICT DO NOTHING waits for an in-flight holder of the key: if it commits, this
  // inserts nothing; if it rolls back, this claims the key.
  const res = await client.query(
    `INSERT INTO idempotency_keys (tenant_id, key, stream_id, result) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, key) DO NOTHING`,
    [req.tenantId, req.options.idempotencyKey, req.streamId, JSON.stringify(result)],
  );
  return res.rowCount === 1;
}

/** The first append's events under an idempotency key (what a repeated append answers with). */
export async function readIdempotentEvents<E extends StoredEvent>(client: ScopedDb, tenantId: string, key: string): Promise<AppendResult<E>> {
  const { rows } = await client.query<{ result: IdempotentResult }>('SELECT result FROM idempotency_keys WHERE tenant_id = $1 AND key = $2', [tenantId, key]);
  const { firstGlobalPosition, count } = rows[0].result;
  const events = await client.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events
      WHERE tenant_id = $1 AND global_position >= $2 AND global_position < $2::int8 + $3
      ORDER BY global_position`,
    [tenantId, firstGlobalPosition, count],
  );
  const recorded = events.rows.map((r) => toRecorded<E>(r));
  const last = recorded[recorded.length - 1];
  return { nextExpectedVersion: last ? last.streamPosition : 0, events: recorded, duplicate: true };
}

/** Locks the stream row (creating it at version 0) and returns its committed version and head hash. */
async function lockStream(client: PoolClient, tenantId: string, streamId: string): Promise<{ version: number; lastHash: string | null }> {
  const { rows } = await client.query<{ version: number; last_hash: string | null }>(
    `INSERT INTO streams (tenant_id, stream_id, version) VALUES ($1, $2, 0)
     ON CONFLICT (tenant_id, stream_id) DO UPDATE SET updated_at = streams.updated_at
     RETURNING version, last_hash`,
    [tenantId, streamId],
  );
  return { version: rows[0].version, lastHash: rows[0].last_hash };
}

/** Throws `STREAM_VERSION_CONFLICT` unless the stream is where the writer expects it. */
export function checkExpectedVersion(expected: ExpectedVersion, actual: number, streamId: string): void {
  const ok = expected === 'any' || (expected === 'no_stream' && actual === 0) || (expected === 'exists' && actual > 0) || expected === actual;
  if (!ok) {
    throw new DomainError('STREAM_VERSION_CONFLICT', `stream ${streamId} is at version ${actual}, expected ${String(expected)}`, {
      expected,
      actual,
      streamId,
    });
  }
}

async function insertEvents<E extends StoredEvent>(
  client: PoolClient,
  req: AppendRequest,
  firstGlobal: number,
  version: number,
  lastHash: string | null,
): Promise<Recorded<E>[]> {
  const { tenantId, streamId, events } = req;
  const globals = events.map((_, i) => firstGlobal + i);
  const positions = events.map((_, i) => version + i + 1);
  // The chain: each event's hash covers the previous one's (hash-chain.ts).
  const hashes: string[] = [];
  const prevHashes: (string | null)[] = [];
  let prev = lastHash;
  for (const [i, e] of events.entries()) {
    prevHashes.push(prev);
    prev = eventHash({ tenantId, streamId, streamPosition: positions[i], eventId: e.eventId, type: e.type, data: e.data, metadata: e.metadata }, prev);
    hashes.push(prev);
  }
  const params = [
    tenantId,
    streamId,
    globals,
    positions,
    events.map((e) => e.eventId),
    events.map((e) => e.type),
    events.map((e) => e.data),
    events.map((e) => e.metadata),
    version + events.length,
    String(globals[globals.length - 1]),
    hashes,
    prevHashes,
    prev,
  ];
  const { rows } = await client.query<{ created_at: Date }>(INSERT_EVENTS, params).catch((e: unknown) => {
    throw translateInsertError(e);
  });
  return recordedEvents<E>(req, firstGlobal, version, rows[0].created_at);
}

/** The events of an append as recorded: positions from `firstGlobal` and after `version`, the time the database gave them. */
export function recordedEvents<E extends StoredEvent>(
  req: Pick<AppendRequest, 'tenantId' | 'streamId' | 'events'>,
  firstGlobal: number,
  version: number,
  createdAt: Date,
): Recorded<E>[] {
  return req.events.map((e, i) =>
    toRecorded<E>({
      global_position: String(firstGlobal + i),
      tenant_id: req.tenantId,
      stream_id: req.streamId,
      stream_position: version + i + 1,
      event_id: e.eventId,
      type: e.type,
      data: JSON.parse(e.data),
      metadata: JSON.parse(e.metadata),
      created_at: createdAt,
    }),
  );
}

const INSERT_EVENTS = `
WITH ins AS (
  INSERT INTO events (global_position, tenant_id, stream_id, stream_position, event_id, type, data, metadata, hash, prev_hash)
  SELECT u.gp, $1::uuid, $2, u.sp, u.eid, u.type, u.data::json, u.metadata::json, u.hash, u.prev_hash
    FROM unnest($3::int8[], $4::int4[], $5::uuid[], $6::text[], $7::text[], $8::text[], $11::text[], $12::text[])
      AS u(gp, sp, eid, type, data, metadata, hash, prev_hash)
  RETURNING created_at
), upd AS (
  UPDATE streams SET version = $9, last_hash = $13, updated_at = now() WHERE tenant_id = $1::uuid AND stream_id = $2
)
SELECT (SELECT max(created_at) FROM ins) AS created_at, pg_notify('${EVENTS_CHANNEL}', $10)`;

/** A duplicate event id is the caller's fault (`INVALID_EVENT`); anything else stays as it is. */
export function translateInsertError(e: unknown): unknown {
  if (errorCode(e) === '23505' && constraintOf(e) === 'events_event_id_key') {
    return new DomainError('INVALID_EVENT', 'an event with this eventId is already recorded', {
      reason: 'DUPLICATE_EVENT_ID',
    });
  }
  return e;
}
