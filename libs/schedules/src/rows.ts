import { ScheduleSpec, type Actor } from '@hub/domain';

/** A `schedules` row as the ticker and the service read it. */
export interface ScheduleRow {
  tenant_id: string;
  id: string;
  client_key: string | null;
  name: string;
  spec: unknown;
  paused: boolean;
  note: string | null;
  created_by: Actor;
  created_at: Date;
  updated_at: Date;
  last_tick_at: Date;
  next_fire_at: Date | null;
  last_session_id: string | null;
  last_turn_id: string | null;
  buffered_at: Date | null;
}

/** A `schedule_ticks` row. */
export interface TickRow {
  schedule_id: string;
  scheduled_at: Date;
  outcome: TickOutcome;
  reason: string | null;
  source: TickSource;
  session_id: string | null;
  turn_id: string | null;
  started_at: Date | null;
}

/** `pending`: asked for (trigger, backfill) and not started yet; the others are decided. */
export type TickOutcome = 'pending' | 'started' | 'buffered' | 'skipped' | 'missed' | 'refused';
export type TickSource = 'schedule' | 'trigger' | 'backfill';

export const SCHEDULE_COLUMNS = `tenant_id::text AS tenant_id, id, client_key, name, spec, paused, note, created_by, created_at, updated_at,
  last_tick_at, next_fire_at, last_session_id, last_turn_id, buffered_at`;

/** The stored spec (written by the service after parsing, so it parses again). */
export function specOf(row: Pick<ScheduleRow, 'spec'>): ScheduleSpec {
  return ScheduleSpec.parse(row.spec);
}

/** What a tick runs on: the fixed session, or the fresh session the pattern names for this tick. */
export function tickTarget(scheduleId: string, spec: ScheduleSpec, at: Date): { sessionId: string; turnId: string; commandId: string } {
  const ms = at.getTime();
  const pattern = spec.run.sessionPattern ?? '{schedule}-{time}';
  const sessionId = spec.run.sessionId ?? pattern.replaceAll('{schedule}', scheduleId).replaceAll('{time}', at.toISOString()).replaceAll('{ms}', String(ms));
  // Deterministic from the tick: a tick decided again after a crash submits the same command,
  // which the log answers with its first outcome (the idempotency key is per tenant).
  return { sessionId, turnId: `schedule-${scheduleId}-${ms}`, commandId: `schedule:${scheduleId}:${ms}` };
}
