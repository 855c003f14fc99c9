import type { Pool, PoolClient } from 'pg';
import { scheduleStreamId, type Actor, type ScheduleSpec, type TickSkipReason } from '@hub/domain';
import { asSystem, beginAs, tenantScope } from '@hub/event-store';
import { hubMetrics } from '@hub/telemetry';
import { FireTimes } from './fire-times';
import { SCHEDULE_COLUMNS, specOf, tickTarget, type ScheduleRow, type TickSource } from './rows';

/** One turn a tick asks for: what the edge turns into a `SubmitTurn` of the schedule's actor. */
export interface ScheduledTurnRequest {
  tenantId: string;
  scheduleId: string;
  scheduleName: string;
  createdBy: Actor;
  sessionId: string;
  turnId: string;
  /** The command's idempotency key: the same for every attempt at one tick. */
  commandId: string;
  prompt: string;
  context: Record<string, unknown>;
  scheduledAt: Date;
  startedAt: Date;
  source: TickSource;
}

/** Refused: a tenant limit, or the session's own answer (e.g. it belongs to another key's client). */
export type SubmitResult = { ok: true } | { ok: false; code: string; message: string };

/**
 * Submits a scheduled turn the way every other turn is submitted (ingress's command service:
 * tenant limits, the decision against the session's log, the runTurn job with fair scheduling).
 * Throws only for a failure a repeat may get past (the store or the queue away).
 */
export interface TurnSubmitter {
  submit(req: ScheduledTurnRequest): Promise<SubmitResult>;
}

/** Appends a schedule's tick facts (idempotently: a fact decided again is not written twice). */
export interface TickFacts {
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: Record<string, unknown> }[],
    opts: { expectedVersion: 'any'; idempotencyKey: string },
  ): Promise<unknown>;
}

export interface TickerOptions {
  pool: Pool;
  submitter: TurnSubmitter;
  facts: TickFacts;
  clock?: () => Date;
  /** Schedules looked at per pass. */
  batch?: number;
  /** Most missed ticks listed one by one (in rows and in the fact); the fact's count has them all. */
  keepMissed?: number;
}

/** Most ticks within the catch-up window one pass starts (a window wider than a pass can run is finished by the next passes). */
const MAX_TICKS_PER_PASS = 1_000;

const ENDED = `SELECT count(*)::int AS n, coalesce(bool_or(type <> 'TurnRequested'), false) AS ended FROM events
  WHERE tenant_id = $1 AND stream_id = $2 AND data->>'turnId' = $3 AND type IN ('TurnRequested', 'TurnCompleted', 'TurnFailed', 'TurnCancelled')`;
const DUE = `SELECT tenant_id::text AS tenant_id, id FROM schedules
  WHERE next_fire_at <= $1 OR buffered_at IS NOT NULL ORDER BY next_fire_at NULLS FIRST LIMIT $2`;
const INSERT_TICK = `INSERT INTO schedule_ticks (tenant_id, schedule_id, scheduled_at, outcome, reason, source)
  VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING scheduled_at`;
const TICK_STARTED = `UPDATE schedule_ticks SET outcome = $4, reason = $5, session_id = $6, turn_id = $7, started_at = $8
  WHERE tenant_id = $1 AND schedule_id = $2 AND scheduled_at = $3`;

interface Pass {
  row: ScheduleRow;
  spec: ScheduleSpec;
  now: Date;
  client: PoolClient;
  /** Whether the schedule's last run has not ended (asked once per pass, then followed). */
  running: boolean;
  skipped: Map<TickSkipReason, { times: Date[]; count: number; detail: string | null }>;
  buffered: Date | null;
  newlyBuffered: Date | null;
  /** How far this pass decided the schedule's own ticks (now, unless it reached its limit). */
  decidedUpTo: Date;
}

/**
 * Decides every schedule's ticks from Postgres. Any number of processes run it: each pass
 * locks a due schedule's row (`FOR UPDATE SKIP LOCKED`, so one process decides a schedule at a
 * time) and inserts each tick under its primary key (schedule, scheduled time) before it starts
 * the tick's turn, in one transaction. The turn's command id is derived from the tick, so a
 * process that dies after submitting and before committing leaves a tick that the next pass
 * decides again and submits again, which the log answers with the first outcome: one turn per
 * tick, whatever crashes. Redis holds nothing of it: a ticker that comes back after downtime (or
 * a Redis loss) enumerates the ticks since the last decided one and applies the catch-up window.
 */
export class ScheduleTicker {
  private readonly clock: () => Date;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private passing: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: TickerOptions) {
    this.clock = opts.clock ?? (() => new Date());
  }

  /** Passes now and then every `intervalMs`; a failed pass is reported and the next runs anyway. */
  start(intervalMs: number, onError: (e: unknown) => void): void {
    const tick = async () => {
      this.passing = this.passOnce(onError).catch(onError);
      await this.passing;
      if (!this.stopped) this.timer = setTimeout(() => void tick(), intervalMs);
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.passing;
  }

  /** One pass over the due schedules; the number decided. A schedule's failure is reported, the others go on. */
  async passOnce(
    onError: (e: unknown) => void = (e) => {
      throw e;
    },
  ): Promise<number> {
    const { rows } = await asSystem(this.opts.pool, 'schedules').query<{ tenant_id: string; id: string }>(DUE, [this.clock(), this.opts.batch ?? 100]);
    let decided = 0;
    for (const r of rows) {
      try {
        if (await this.decide(r.tenant_id, r.id)) decided++;
      } catch (e) {
        onError(e);
      }
    }
    return decided;
  }

  /** Decides one schedule's due ticks (and its asked-for ones); false when another process holds it. */
  async decide(tenantId: string, scheduleId: string): Promise<boolean> {
    const client = await this.opts.pool.connect();
    let pass: Pass | null = null;
    try {
      await beginAs(client, tenantScope(tenantId));
      const { rows } = await client.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE tenant_id = $1 AND id = $2 FOR UPDATE SKIP LOCKED`, [
        tenantId,
        scheduleId,
      ]);
      const row = rows[0];
      if (!row) {
        await client.query('COMMIT');
        return false;
      }
      const now = this.clock();
      pass = { row, spec: specOf(row), now, client, running: false, skipped: new Map(), buffered: row.buffered_at, newlyBuffered: null, decidedUpTo: now };
      pass.running = await this.lastRunRunning(pass);
      await this.runAskedFor(pass);
      if (!row.paused) await this.runDue(pass);
      const times = new FireTimes(pass.spec);
      const next = row.paused ? null : times.next(pass.now);
      await client.query(
        `UPDATE schedules SET last_tick_at = GREATEST(last_tick_at, $3), next_fire_at = $4, last_session_id = $5, last_turn_id = $6, buffered_at = $7 WHERE tenant_id = $1 AND id = $2`,
        [
          tenantId,
          scheduleId,
          row.paused ? row.last_tick_at : pass.decidedUpTo,
          pass.decidedUpTo < now ? now : next,
          row.last_session_id,
          row.last_turn_id,
          pass.buffered,
        ],
      );
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
    await this.recordFacts(pass);
    return true;
  }

  /** Ticks a trigger or a backfill asked for: started now, whatever runs (they were asked for). */
  private async runAskedFor(p: Pass): Promise<void> {
    const { rows } = await p.client.query<{ scheduled_at: Date; source: TickSource }>(
      `SELECT scheduled_at, source FROM schedule_ticks WHERE tenant_id = $1 AND schedule_id = $2 AND outcome = 'pending' ORDER BY scheduled_at LIMIT 100`,
      [p.row.tenant_id, p.row.id],
    );
    for (const t of rows) await this.fire(p, t.scheduled_at, t.source);
  }

  /** The schedule's own ticks since the last decided one: missed, skipped, buffered or started. */
  private async runDue(p: Pass): Promise<void> {
    const { row, spec, now } = p;
    // A buffered tick goes first, once the run it waited for has ended.
    if (p.buffered && !p.running) {
      const at = p.buffered;
      p.buffered = null;
      await this.fire(p, at, 'schedule', true);
    }
    const times = new FireTimes(spec);
    // Ticks before the cutoff are missed (the newest `keepMissed` listed, all counted); from it on they run.
    const cutoff = new Date(now.getTime() - spec.catchUpWindowMs - 1);
    const missed = cutoff > row.last_tick_at ? times.between(row.last_tick_at, cutoff, this.opts.keepMissed ?? 1_000) : { times: [], count: 0 };
    // Oldest first; a pass that reaches its limit decides the rest next time (it moves the mark only as far as it got).
    const inWindow = times.preview(cutoff > row.last_tick_at ? cutoff : row.last_tick_at, MAX_TICKS_PER_PASS).filter((t) => t.getTime() <= now.getTime());
    if (inWindow.length === MAX_TICKS_PER_PASS) p.decidedUpTo = inWindow.at(-1) as Date;
    if (missed.count > 0) {
      for (const t of missed.times) await this.insertTick(p, t, 'missed', 'catch_up_window', 'schedule');
      this.skip(p, 'catch_up_window', missed.times, missed.count, `${missed.count} tick(s) older than the catch-up window of ${spec.catchUpWindowMs} ms`);
      hubMetrics().scheduleTicks.add(missed.count, { outcome: 'missed', source: 'schedule' });
    }
    for (const t of inWindow) {
      if (!p.running || spec.overlap === 'allow_all') {
        await this.fire(p, t, 'schedule');
      } else if (spec.overlap === 'buffer_one' && p.buffered === null) {
        if (await this.insertTick(p, t, 'buffered', null, 'schedule')) {
          p.buffered = t;
          p.newlyBuffered = t;
        }
      } else if (await this.insertTick(p, t, 'skipped', 'overlap', 'schedule')) {
        this.skip(p, 'overlap', [t], 1, p.row.last_turn_id === null ? null : `turn ${p.row.last_turn_id} still running`);
      }
    }
  }

  /**
   * Starts the turn of the tick at `at`. Its row comes first (a tick another pass has decided
   * is not started again); then the submit; then the row says what came of it.
   */
  private async fire(p: Pass, at: Date, source: TickSource, buffered = false): Promise<void> {
    const { row, spec, client } = p;
    if (source === 'schedule' && !buffered && !(await this.insertTick(p, at, 'pending', null, source))) return;
    const target = tickTarget(row.id, spec, at);
    const startedAt = this.clock();
    const result = await this.opts.submitter.submit({
      tenantId: row.tenant_id,
      scheduleId: row.id,
      scheduleName: row.name,
      createdBy: row.created_by,
      ...target,
      prompt: spec.run.prompt,
      context: spec.run.context,
      scheduledAt: at,
      startedAt,
      source,
    });
    if (result.ok) {
      await client.query(TICK_STARTED, [row.tenant_id, row.id, at, 'started', null, target.sessionId, target.turnId, startedAt]);
      row.last_session_id = target.sessionId;
      row.last_turn_id = target.turnId;
      p.running = true;
      hubMetrics().scheduleTicks.add(1, { outcome: 'started', source });
    } else {
      const detail = `${result.code}: ${result.message}`;
      await client.query(TICK_STARTED, [row.tenant_id, row.id, at, 'refused', detail.slice(0, 500), target.sessionId, null, null]);
      this.skip(p, 'refused', [at], 1, detail);
    }
  }

  private async insertTick(p: Pass, at: Date, outcome: string, reason: string | null, source: TickSource): Promise<boolean> {
    const { rowCount } = await p.client.query(INSERT_TICK, [p.row.tenant_id, p.row.id, at, outcome, reason, source]);
    // Missed ticks are counted in full where they are found (more may be missed than are listed).
    if (rowCount === 1 && outcome !== 'pending' && outcome !== 'missed') hubMetrics().scheduleTicks.add(1, { outcome, source });
    return rowCount === 1;
  }

  private skip(p: Pass, reason: TickSkipReason, times: Date[], count: number, detail: string | null): void {
    const seen = p.skipped.get(reason) ?? { times: [], count: 0, detail };
    seen.times.push(...times);
    seen.count += count;
    seen.detail = detail;
    p.skipped.set(reason, seen);
    if (reason === 'refused') hubMetrics().scheduleTicks.add(count, { outcome: 'refused' });
  }

  /** Whether the turn the schedule last started has not ended (queued behind another counts as running). */
  private async lastRunRunning(p: Pass): Promise<boolean> {
    const { row } = p;
    if (row.last_session_id === null || row.last_turn_id === null) return false;
    const { rows } = await p.client.query<{ n: number; ended: boolean }>(ENDED, [row.tenant_id, `session-${row.last_session_id}`, row.last_turn_id]);
    return (rows[0]?.n ?? 0) > 0 && rows[0]?.ended !== true;
  }

  /**
   * The pass's skipped and buffered ticks as facts on the schedule's stream, after the commit
   * (a pass that rolled back decided nothing). Keyed by the ticks, so a repeat writes nothing.
   */
  private async recordFacts(p: Pass | null): Promise<void> {
    if (!p) return;
    const stream = scheduleStreamId(p.row.id);
    const metadata = { correlationId: `schedule:${p.row.id}`, actor: scheduleActor(p.row.id, p.row.name), protocol: 'internal', createdBy: p.row.created_by };
    for (const [reason, s] of p.skipped) {
      const first = s.times[0]?.getTime() ?? p.now.getTime();
      const last = s.times.at(-1)?.getTime() ?? first;
      await this.opts.facts.append(
        p.row.tenant_id,
        stream,
        [
          {
            type: 'ScheduleTicksSkipped',
            data: { scheduleId: p.row.id, reason, scheduledAt: s.times.map((t) => t.toISOString()), count: s.count, detail: s.detail },
            metadata,
          },
        ],
        { expectedVersion: 'any', idempotencyKey: `schedule-skip:${p.row.id}:${reason}:${first}:${last}:${s.count}` },
      );
    }
    if (p.newlyBuffered) {
      const at = p.newlyBuffered;
      await this.opts.facts.append(
        p.row.tenant_id,
        stream,
        [{ type: 'ScheduleTickBuffered', data: { scheduleId: p.row.id, scheduledAt: at.toISOString() }, metadata }],
        {
          expectedVersion: 'any',
          idempotencyKey: `schedule-buffer:${p.row.id}:${at.getTime()}`,
        },
      );
    }
  }
}

/** The actor of what a schedule does: the schedule itself (its creator goes beside it, in `metadata.schedule.createdBy`). */
export function scheduleActor(scheduleId: string, name: string): Actor {
  return { type: 'system', id: `schedule:${scheduleId}`, name };
}
