import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { DomainError, ScheduleSpec, type Actor, type AdminEvent } from '@hub/domain';
import { asTenant, beginAs, tenantScope } from '@hub/event-store';
import { FireTimes } from './fire-times';
import { SCHEDULE_COLUMNS, specOf, type ScheduleRow, type TickRow } from './rows';

/** Records administration facts on the tenant's admin stream, naming who made them. */
export type RecordAdmin = (tenantId: string, events: AdminEvent[], by: Actor) => Promise<void>;

/** A schedule as the API shows it. */
export interface ScheduleView {
  id: string;
  clientKey: string | null;
  spec: ScheduleSpec;
  paused: boolean;
  note: string | null;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  nextRunAt: string | null;
  lastRun: TickView | null;
}

export interface TickView {
  scheduledAt: string;
  outcome: TickRow['outcome'];
  reason: string | null;
  source: TickRow['source'];
  sessionId: string | null;
  turnId: string | null;
  startedAt: string | null;
}

/** Most ticks one backfill may ask for. */
export const MAX_BACKFILL_TICKS = 1_000;
/** Most fire times one preview lists. */
export const MAX_PREVIEW = 100;

const LAST_RUN = `(SELECT row_to_json(t) FROM (SELECT scheduled_at, outcome, reason, source, session_id, turn_id, started_at FROM schedule_ticks k
  WHERE k.tenant_id = s.tenant_id AND k.schedule_id = s.id AND k.outcome = 'started' ORDER BY scheduled_at DESC LIMIT 1) t) AS last_run`;

/**
 * A tenant's schedules: save (by id, or idempotently by the client's key), pause with a note,
 * resume, delete, trigger now, backfill a range, preview fire times, list ticks. Every change is
 * recorded on the tenant's admin stream by `record`; the tickers (ScheduleTicker) run the ticks.
 * Roles are the edge's business; the tenant is always the caller's.
 */
export class Schedules {
  constructor(
    private readonly pool: Pool,
    private readonly record: RecordAdmin,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Creates a schedule, or replaces the spec of `id` (or of the schedule with the same client
   * key: a repeated create updates rather than duplicates). `created` says which.
   */
  async save(
    tenantId: string,
    input: unknown,
    by: Actor,
    opts: { id?: string; clientKey?: string | null } = {},
  ): Promise<{ schedule: ScheduleView; created: boolean }> {
    const spec = parseSpec(input);
    const times = new FireTimes(spec); // refuses a bad cron or time zone
    const clientKey = opts.clientKey ?? null;
    const now = this.clock();
    return this.inTenant(tenantId, async (db) => {
      const existing =
        opts.id !== undefined ? await this.lock(db, tenantId, opts.id) : clientKey !== null ? await this.lockByKey(db, tenantId, clientKey) : null;
      if (opts.id !== undefined && !existing) throw notFound(opts.id);
      const id = existing?.id ?? `sch-${randomBytes(8).toString('hex')}`;
      const paused = spec.paused;
      // A timing change starts from now: no catch-up of ticks the old timing never had.
      const next = paused ? null : times.next(now);
      if (existing) {
        await db.query(
          `UPDATE schedules SET name = $3, spec = $4, paused = $5, note = $6, updated_at = $7, next_fire_at = $8,
             last_tick_at = CASE WHEN spec->'cron' IS DISTINCT FROM $4::jsonb->'cron' OR spec->'intervalMs' IS DISTINCT FROM $4::jsonb->'intervalMs' OR spec->'timeZone' IS DISTINCT FROM $4::jsonb->'timeZone' OR paused <> $5 THEN $7 ELSE last_tick_at END
           WHERE tenant_id = $1 AND id = $2`,
          [tenantId, id, spec.name, JSON.stringify(spec), paused, spec.note, now, next],
        );
      } else {
        await db.query(
          `INSERT INTO schedules (tenant_id, id, client_key, name, spec, paused, note, created_by, created_at, updated_at, last_tick_at, next_fire_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9, $10)`,
          [tenantId, id, clientKey, spec.name, JSON.stringify(spec), paused, spec.note, JSON.stringify(by), now, next],
        );
      }
      await this.record(
        tenantId,
        [
          {
            type: 'ScheduleSaved',
            data: { scheduleId: id, clientKey: existing?.client_key ?? clientKey, created: !existing, spec: spec as unknown as Record<string, unknown> },
          },
        ],
        by,
      );
      return { schedule: await this.view(db, tenantId, id), created: !existing };
    });
  }

  async list(tenantId: string): Promise<ScheduleView[]> {
    const { rows } = await asTenant(this.pool, tenantId).query<ScheduleRow & { last_run: unknown }>(
      `SELECT ${SCHEDULE_COLUMNS}, ${LAST_RUN} FROM schedules s WHERE tenant_id = $1 ORDER BY created_at, id`,
      [tenantId],
    );
    return rows.map(toView);
  }

  async get(tenantId: string, id: string): Promise<ScheduleView> {
    return this.inTenant(tenantId, (db) => this.view(db, tenantId, id));
  }

  /** Stops the schedule's ticks (they are not caught up on resume); `note` says why. */
  async pause(tenantId: string, id: string, note: string | null, by: Actor): Promise<ScheduleView> {
    return this.inTenant(tenantId, async (db) => {
      const row = await this.lock(db, tenantId, id);
      if (!row) throw notFound(id);
      const spec = { ...specOf(row), paused: true, note };
      await db.query(
        `UPDATE schedules SET paused = true, note = $3, spec = $4, next_fire_at = NULL, buffered_at = NULL, updated_at = $5 WHERE tenant_id = $1 AND id = $2`,
        [tenantId, id, note, JSON.stringify(spec), this.clock()],
      );
      // A tick held under buffer_one does not outlive the pause.
      await db.query(`UPDATE schedule_ticks SET outcome = 'skipped', reason = 'paused' WHERE tenant_id = $1 AND schedule_id = $2 AND outcome = 'buffered'`, [
        tenantId,
        id,
      ]);
      await this.record(tenantId, [{ type: 'SchedulePaused', data: { scheduleId: id, note } }], by);
      return this.view(db, tenantId, id);
    });
  }

  /** Ticks again from now on. */
  async resume(tenantId: string, id: string, note: string | null, by: Actor): Promise<ScheduleView> {
    return this.inTenant(tenantId, async (db) => {
      const row = await this.lock(db, tenantId, id);
      if (!row) throw notFound(id);
      const now = this.clock();
      const spec = { ...specOf(row), paused: false, note };
      await db.query(
        `UPDATE schedules SET paused = false, note = $3, spec = $4, last_tick_at = $5, next_fire_at = $6, updated_at = $5 WHERE tenant_id = $1 AND id = $2`,
        [tenantId, id, note, JSON.stringify(spec), now, new FireTimes(spec).next(now)],
      );
      await this.record(tenantId, [{ type: 'ScheduleResumed', data: { scheduleId: id, note } }], by);
      return this.view(db, tenantId, id);
    });
  }

  /** Deletes the schedule (its ticks stay, with the sessions they made). */
  async remove(tenantId: string, id: string, by: Actor): Promise<void> {
    await this.inTenant(tenantId, async (db) => {
      if (!(await this.lock(db, tenantId, id))) throw notFound(id);
      await db.query(`DELETE FROM schedules WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      await this.record(tenantId, [{ type: 'ScheduleDeleted', data: { scheduleId: id } }], by);
    });
  }

  /** A run now, paused or not; a ticker starts it within its poll interval. */
  async trigger(tenantId: string, id: string, by: Actor): Promise<{ scheduledAt: string }> {
    const at = this.clock();
    await this.ask(tenantId, id, [at], 'trigger', by, at, at);
    return { scheduledAt: at.toISOString() };
  }

  /**
   * The schedule's ticks in [from, to] that were never decided are started (ticks already
   * decided, run or skipped, are left as they are), oldest first.
   */
  async backfill(tenantId: string, id: string, from: Date, to: Date, by: Actor): Promise<{ asked: number; alreadyDecided: number; scheduledAt: string[] }> {
    if (!(from.getTime() < to.getTime())) throw new DomainError('INVALID_COMMAND', 'backfill needs from before to');
    if (to.getTime() > this.clock().getTime()) throw new DomainError('INVALID_COMMAND', 'backfill covers the past only: to must not be in the future');
    const spec = specOf(await this.get(tenantId, id).then((v) => ({ spec: v.spec })));
    const { times, count } = new FireTimes(spec).between(new Date(from.getTime() - 1), to, MAX_BACKFILL_TICKS + 1);
    if (count > MAX_BACKFILL_TICKS) throw new DomainError('INVALID_COMMAND', `the range has ${count} ticks; at most ${MAX_BACKFILL_TICKS} per backfill`);
    const asked = await this.ask(tenantId, id, times, 'backfill', by, from, to);
    return { asked: asked.length, alreadyDecided: times.length - asked.length, scheduledAt: asked.map((t) => t.toISOString()) };
  }

  /** The next `n` fire times after now (or `after`). */
  async preview(tenantId: string, id: string, n: number, after?: Date): Promise<string[]> {
    if (!(Number.isInteger(n) && n >= 1 && n <= MAX_PREVIEW)) throw new DomainError('INVALID_COMMAND', `count must be a whole number from 1 to ${MAX_PREVIEW}`);
    const { spec } = await this.get(tenantId, id);
    return new FireTimes(spec).preview(after ?? this.clock(), n).map((d) => d.toISOString());
  }

  /** The schedule's decided ticks, newest first. */
  async ticks(tenantId: string, id: string, limit = 100): Promise<TickView[]> {
    await this.get(tenantId, id);
    const { rows } = await asTenant(this.pool, tenantId).query<TickRow>(
      `SELECT schedule_id, scheduled_at, outcome, reason, source, session_id, turn_id, started_at FROM schedule_ticks WHERE tenant_id = $1 AND schedule_id = $2 ORDER BY scheduled_at DESC LIMIT $3`,
      [tenantId, id, Math.min(Math.max(1, limit), 1_000)],
    );
    return rows.map(tickView);
  }

  /** Inserts asked-for ticks as `pending` and makes the schedule due now; the ones new are returned. */
  private async ask(tenantId: string, id: string, times: Date[], kind: 'trigger' | 'backfill', by: Actor, from: Date, to: Date): Promise<Date[]> {
    return this.inTenant(tenantId, async (db) => {
      if (!(await this.lock(db, tenantId, id))) throw notFound(id);
      const { rows } = await db.query<{ scheduled_at: Date }>(
        `INSERT INTO schedule_ticks (tenant_id, schedule_id, scheduled_at, outcome, source)
         SELECT $1, $2, t, 'pending', $4 FROM unnest($3::timestamptz[]) AS t ON CONFLICT DO NOTHING RETURNING scheduled_at`,
        [tenantId, id, times, kind],
      );
      if (rows.length > 0)
        await db.query(`UPDATE schedules SET next_fire_at = LEAST(coalesce(next_fire_at, $3), $3) WHERE tenant_id = $1 AND id = $2`, [
          tenantId,
          id,
          this.clock(),
        ]);
      await this.record(
        tenantId,
        [{ type: 'ScheduleRunsRequested', data: { scheduleId: id, kind, from: from.toISOString(), to: to.toISOString(), ticks: rows.length } }],
        by,
      );
      return rows.map((r) => r.scheduled_at).sort((a, b) => a.getTime() - b.getTime());
    });
  }

  private async view(db: PoolClient, tenantId: string, id: string): Promise<ScheduleView> {
    const { rows } = await db.query<ScheduleRow & { last_run: unknown }>(
      `SELECT ${SCHEDULE_COLUMNS}, ${LAST_RUN} FROM schedules s WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id],
    );
    if (!rows[0]) throw notFound(id);
    return toView(rows[0]);
  }

  private async lock(db: PoolClient, tenantId: string, id: string): Promise<ScheduleRow | null> {
    const { rows } = await db.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
    return rows[0] ?? null;
  }

  private async lockByKey(db: PoolClient, tenantId: string, clientKey: string): Promise<ScheduleRow | null> {
    // Two creates with one new key at once: the second waits on the first's insert, then finds it.
    await db.query(`SELECT pg_advisory_xact_lock(hashtext($1 || ':' || $2))`, [tenantId, clientKey]);
    const { rows } = await db.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE tenant_id = $1 AND client_key = $2 FOR UPDATE`, [
      tenantId,
      clientKey,
    ]);
    return rows[0] ?? null;
  }

  private async inTenant<T>(tenantId: string, work: (db: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await beginAs(client, tenantScope(tenantId));
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }
}

/** The spec, or INVALID_COMMAND naming the first problem. */
export function parseSpec(input: unknown): ScheduleSpec {
  const parsed = ScheduleSpec.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('INVALID_COMMAND', `schedule: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** No such schedule in the caller's tenant (another tenant's is the same: not found). The edge answers 404. */
export class ScheduleNotFound extends Error {
  override readonly name = 'ScheduleNotFound';
}

function notFound(id: string): ScheduleNotFound {
  return new ScheduleNotFound(`no schedule ${id.slice(0, 100)} in this tenant`);
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function tickView(t: TickRow): TickView {
  return {
    scheduledAt: iso(t.scheduled_at) as string,
    outcome: t.outcome,
    reason: t.reason,
    source: t.source,
    sessionId: t.session_id,
    turnId: t.turn_id,
    startedAt: iso(t.started_at),
  };
}

function toView(r: ScheduleRow & { last_run?: unknown }): ScheduleView {
  return {
    id: r.id,
    clientKey: r.client_key,
    spec: specOf(r),
    paused: r.paused,
    note: r.note,
    createdBy: r.created_by,
    createdAt: iso(r.created_at) as string,
    updatedAt: iso(r.updated_at) as string,
    nextRunAt: iso(r.next_fire_at),
    lastRun: r.last_run ? tickView(r.last_run as TickRow) : null,
  };
}
