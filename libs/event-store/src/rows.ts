import type { EventMetadata, Recorded } from '@hub/domain';
import type { StoredEvent } from './types';

/** The columns every read selects, in the shape `toRecorded` maps. */
export const EVENT_COLUMNS = 'global_position, tenant_id, stream_id, stream_position, event_id, type, data, metadata, created_at';

/**
 * A row is "settled" when the transaction that wrote it is older than every transaction still
 * running: nothing can commit before it any more (see this lib's README, "Global order").
 */
export const SETTLED = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';

export interface EventRow {
  /** int8 arrives as a string from pg; converted once here. */
  global_position: string;
  tenant_id: string;
  stream_id: string;
  stream_position: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date;
}

/**
 * Global positions become JS numbers: exact up to 2^53 - 1 (about 9e15 events), far beyond
 * what one log holds; past that this throws rather than return a wrong cursor.
 */
export function toPosition(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`global position ${value} exceeds Number.MAX_SAFE_INTEGER`);
  return n;
}

export function toRecorded<E extends StoredEvent = StoredEvent>(row: EventRow): Recorded<E> {
  // The store does not know the event union; callers name it (and may parse `data` with zod).
  const recorded = {
    type: row.type,
    data: row.data,
    eventId: row.event_id,
    tenantId: row.tenant_id,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    globalPosition: toPosition(row.global_position),
    createdAt: row.created_at.toISOString(),
    metadata: row.metadata,
  };
  return recorded as unknown as Recorded<E>;
}
