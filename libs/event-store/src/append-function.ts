import { DomainError } from '@hub/domain';
import type { Pool } from 'pg';
import type { AppendRequest } from './append';
import { readIdempotentEvents, recordedEvents, translateInsertError } from './append';
import { errorCode } from './pg-errors';
import { asTenant } from './scope';
import type { AppendResult, ExpectedVersion, StoredEvent } from './types';

/** SQLSTATE `hub_append` raises when the stream is not at the expected version. */
const VERSION_CONFLICT = 'HB409';

/**
 * The append as one statement (`hub_append`, migration `…_append_function`, ADR 0026): the same
 * steps in the same order as {@link appendInTransaction}, the hash chain included, in one round
 * trip. Prepared once per connection (a named statement), so Postgres parses and plans it once.
 * Used for every append that runs nothing else in its transaction.
 */
export async function appendInOneStatement<E extends StoredEvent>(pool: Pool, req: AppendRequest): Promise<AppendResult<E>> {
  const { tenantId, streamId, events, options } = req;
  let row: { duplicate: boolean; first_global: string | null; version_before: number | null; created_at: Date | null; hashes: string[] | null };
  try {
    const res = await pool.query<typeof row>({
      name: 'hub_append',
      text: 'SELECT duplicate, first_global::text AS first_global, version_before, created_at, hashes FROM hub_append($1, $2, $3, $4, $5, $6, $7, $8)',
      values: [
        tenantId,
        streamId,
        expectedCode(options.expectedVersion),
        options.idempotencyKey ?? null,
        events.map((e) => e.eventId),
        events.map((e) => e.type),
        events.map((e) => e.data),
        events.map((e) => e.metadata),
      ],
    });
    row = res.rows[0];
  } catch (e) {
    if (errorCode(e) === VERSION_CONFLICT) {
      const actual = Number((e as { detail?: string }).detail);
      throw new DomainError('STREAM_VERSION_CONFLICT', `stream ${streamId} is at version ${actual}, expected ${String(options.expectedVersion)}`, {
        expected: options.expectedVersion,
        actual,
        streamId,
      });
    }
    throw translateInsertError(e);
  }
  // The function set the tenant for its own statement only: this read names it again.
  if (row.duplicate) return readIdempotentEvents<E>(asTenant(pool, tenantId), tenantId, options.idempotencyKey as string);
  const version = row.version_before as number;
  const recorded = recordedEvents<E>(req, Number(row.first_global), version, row.created_at as Date);
  return { nextExpectedVersion: version + events.length, events: recorded, duplicate: false };
}

/** The expected version as `hub_append` takes it: the number, or -1 any, -2 no stream, -3 exists. */
export function expectedCode(expected: ExpectedVersion): number {
  if (expected === 'any') return -1;
  if (expected === 'no_stream') return -2;
  if (expected === 'exists') return -3;
  return expected;
}
