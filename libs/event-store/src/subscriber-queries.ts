import type { Pool } from 'pg';
import { asSystem, asTenant } from './scope';
import { EVENT_COLUMNS, SETTLED, toPosition, toRecorded, type EventRow } from './rows';
import type { StoredEvent } from './types';
import type { Recorded } from '@hub/domain';

/** One read of the log's tail for every subscribed tenant, plus where the log stands. */
export interface TailPage {
  events: Recorded<StoredEvent>[];
  /** Highest settled global position, cluster-wide, in the same snapshot. */
  settledHead: number;
  /** Highest committed global position; above `settledHead` means a writer is still open. */
  visibleHead: number;
}

// One snapshot for all three answers. The settled head is a backward scan of the primary key
// that stops at the first settled row, so its cost is the number of still-unsettled events.
const TAIL_QUERY = {
  name: 'hub_read_tail',
  text: `
WITH snap AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
heads AS (
  SELECT COALESCE((SELECT global_position FROM events, snap WHERE transaction_id < snap.xmin
                    ORDER BY global_position DESC LIMIT 1), 0)::text AS settled_head,
         COALESCE((SELECT max(global_position) FROM events), 0)::text AS visible_head
)
SELECT heads.settled_head, heads.visible_head, e.*
  FROM heads LEFT JOIN LATERAL (
    SELECT ${EVENT_COLUMNS} FROM events, snap
     WHERE tenant_id = ANY($1::uuid[]) AND global_position > $2 AND transaction_id < snap.xmin
     ORDER BY global_position LIMIT $3
  ) e ON true`,
};

/**
 * System work (`subscriber`): one read for every subscribed tenant, and the heads of the whole
 * log. Each subscription is handed only its own tenant's events (event-subscriber.ts).
 */
export async function readTail(pool: Pool, tenants: string[], after: number, limit: number): Promise<TailPage> {
  const { rows } = await asSystem(pool, 'subscriber').query<Partial<EventRow> & { settled_head: string; visible_head: string }>(TAIL_QUERY, [
    tenants,
    after,
    limit,
  ]);
  const first = rows[0];
  return {
    events: rows.filter((r) => r.global_position !== null).map((r) => toRecorded(r as EventRow)),
    settledHead: toPosition(first.settled_head),
    visibleHead: toPosition(first.visible_head),
  };
}

/**
 * Events of one subscription in (after, upTo]. `upTo` is a settled position, and settled
 * events are a prefix of the log, so no settledness filter is needed here.
 */
export async function readRange(
  pool: Pool,
  filter: { tenantId: string; streamId?: string },
  after: number,
  upTo: number,
  limit: number,
): Promise<Recorded<StoredEvent>[]> {
  const byStream = filter.streamId !== undefined;
  const { rows } = await asTenant(pool, filter.tenantId).query<EventRow>(
    {
      name: byStream ? 'hub_read_range_stream' : 'hub_read_range',
      text: `SELECT ${EVENT_COLUMNS} FROM events
              WHERE tenant_id = $1 AND ${byStream ? 'stream_id = $5 AND' : ''} global_position > $2 AND global_position <= $3
              ORDER BY global_position LIMIT $4`,
    },
    byStream ? [filter.tenantId, after, upTo, limit, filter.streamId] : [filter.tenantId, after, upTo, limit],
  );
  return rows.map((r) => toRecorded(r));
}

/** The tenant's highest settled global position, 0 if none. */
/**
 * The global position of the tenant's last committed event, settled or not: a position this hub
 * handed out a moment ago (its own append) is here before it settles (before every transaction
 * older than it has ended).
 */
export async function readCommittedHead(pool: Pool, tenantId: string): Promise<number> {
  const { rows } = await asTenant(pool, tenantId).query<{ global_position: string }>(
    { name: 'hub_read_committed_head', text: 'SELECT global_position FROM events WHERE tenant_id = $1 ORDER BY global_position DESC LIMIT 1' },
    [tenantId],
  );
  return rows[0] ? toPosition(rows[0].global_position) : 0;
}

export async function readHead(pool: Pool, tenantId: string): Promise<number> {
  const { rows } = await asTenant(pool, tenantId).query<{ global_position: string }>(
    { name: 'hub_read_head', text: `SELECT global_position FROM events WHERE tenant_id = $1 AND ${SETTLED} ORDER BY global_position DESC LIMIT 1` },
    [tenantId],
  );
  return rows[0] ? toPosition(rows[0].global_position) : 0;
}
