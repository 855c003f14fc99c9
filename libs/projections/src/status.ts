import { asSystem } from '@hub/event-store';
import type { Pool } from 'pg';
import { PROJECTION_LOCK_CLASS, runnerHoldsLockSql } from './leadership';

/** Where one projection stands against the log. */
export interface ProjectionStatus {
  name: string;
  /** Global position applied up to. */
  position: number;
  /** Highest committed global position of the log. */
  head: number;
  /** Events after the checkpoint (every tenant). */
  lagEvents: number;
  /** Age of the oldest event not applied yet; 0 when caught up. */
  lagMs: number;
  skippedUnknown: number;
  lastSkippedType: string | null;
  /** True when some process holds the projection's lock (is running it). */
  active: boolean;
  updatedAt: string;
}

/** Status of the named projections (those without a checkpoint yet stand at 0); lag counts every tenant's events. */
export async function projectionStatus(pool: Pool, names: readonly string[]): Promise<ProjectionStatus[]> {
  const { rows } = await asSystem(pool, 'projections').query<{
    name: string;
    position: string;
    head: string;
    lag_events: string;
    lag_ms: string | null;
    skipped_unknown: string;
    last_skipped_type: string | null;
    active: boolean;
    updated_at: Date | null;
  }>(
    `SELECT n.name, COALESCE(c.position, 0)::text AS position,
            (SELECT COALESCE(max(global_position), 0) FROM events)::text AS head,
            (SELECT count(*) FROM events e WHERE e.global_position > COALESCE(c.position, 0))::text AS lag_events,
            (SELECT (extract(epoch FROM clock_timestamp() - e.created_at) * 1000)::bigint FROM events e
              WHERE e.global_position > COALESCE(c.position, 0) ORDER BY e.global_position LIMIT 1)::text AS lag_ms,
            COALESCE(c.skipped_unknown, 0)::text AS skipped_unknown, c.last_skipped_type, c.updated_at,
            ${runnerHoldsLockSql('n.name', '$2')} AS active
       FROM unnest($1::text[]) AS n(name) LEFT JOIN projection_checkpoints c ON c.name = n.name
      ORDER BY n.name`,
    [names, PROJECTION_LOCK_CLASS],
  );
  return rows.map((r) => ({
    name: r.name,
    position: Number(r.position),
    head: Number(r.head),
    lagEvents: Number(r.lag_events),
    lagMs: Math.max(0, Number(r.lag_ms ?? 0)),
    skippedUnknown: Number(r.skipped_unknown),
    lastSkippedType: r.last_skipped_type,
    active: r.active,
    updatedAt: (r.updated_at ?? new Date(0)).toISOString(),
  }));
}
