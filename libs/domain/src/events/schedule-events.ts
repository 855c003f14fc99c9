import { z } from 'zod';
import { defineEvent } from './define-event';
import { TurnContext } from './events';
import { SESSION_ID_PATTERN } from './recorded';

// Schedules (issue 25, ADR 0037): agent runs that start on their own. A schedule's changes are
// administration facts on the tenant's admin stream (`tenant-admin`), naming who made them; what
// happened to a tick that did not start a turn (skipped while the previous run ran, missed
// after downtime longer than the catch-up window, refused by a limit) is a fact on the
// schedule's own stream (`scheduleStreamId`). A tick that started a turn needs no fact of its
// own: the turn's events carry `metadata.schedule` (the tick's scheduled and actual start).

/** The stream of one schedule's tick facts. */
export function scheduleStreamId(scheduleId: string): string {
  return `schedule-${scheduleId}`;
}

/** What to do with a tick that comes while the schedule's previous run still runs. */
export const OverlapPolicy = z.enum(['skip', 'buffer_one', 'allow_all']);
export type OverlapPolicy = z.infer<typeof OverlapPolicy>;

/** The placeholders a fresh session's name pattern may use; `{time}` or `{ms}` makes each tick's name its own. */
export const SESSION_PATTERN_TIME = /\{(time|ms)\}/;

const isTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** What a tick runs: a prompt on a fixed session, or on a fresh session per tick named by a pattern. */
export const ScheduleRun = z
  .object({
    prompt: z.string().min(1).max(100_000),
    /** A fixed session: every tick is a turn of it (turns of one session never overlap: they queue). */
    sessionId: z.string().regex(SESSION_ID_PATTERN, 'session id: 1-128 of [A-Za-z0-9._:@-]').optional(),
    /** A fresh session per tick: `{schedule}`, `{time}` (ISO) and `{ms}` are replaced. */
    sessionPattern: z.string().min(1).max(100).regex(SESSION_PATTERN_TIME, 'sessionPattern needs {time} or {ms}, so each tick gets its own session').optional(),
    /** The turn's agent configuration, as a client gives it in a submit (model, tools, MCP servers...). */
    context: TurnContext.default({}),
  })
  .strict()
  .refine((r) => !(r.sessionId && r.sessionPattern), { message: 'give sessionId (a fixed session) or sessionPattern (a fresh one per tick), not both' });
export type ScheduleRun = z.infer<typeof ScheduleRun>;

/** A schedule as an operator gives it (POST/PUT `/v1/schedules`). Exactly one of `cron` and `intervalMs`. */
export const ScheduleSpec = z
  .object({
    name: z.string().trim().min(1).max(200),
    /** Five fields, or six with seconds first (croner's syntax), read in `timeZone`. */
    cron: z.string().trim().min(1).max(200).optional(),
    /** Every this many milliseconds, aligned to the Unix epoch (so a change of anything else keeps the grid). */
    intervalMs: z
      .number()
      .int()
      .min(1_000)
      .max(366 * 24 * 3_600_000)
      .optional(),
    /** IANA time zone of the cron fields (daylight saving included). */
    timeZone: z.string().default('UTC').refine(isTimeZone, { message: 'timeZone must be an IANA time zone, e.g. Europe/Berlin' }),
    startAt: z.iso.datetime({ offset: true }).nullable().default(null),
    endAt: z.iso.datetime({ offset: true }).nullable().default(null),
    overlap: OverlapPolicy.default('skip'),
    /** After downtime, ticks older than this are recorded as missed instead of run. */
    catchUpWindowMs: z
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 3_600_000)
      .default(60_000),
    paused: z.boolean().default(false),
    note: z.string().max(1_000).nullable().default(null),
    run: ScheduleRun,
  })
  .strict()
  .refine((s) => (s.cron === undefined) !== (s.intervalMs === undefined), { message: 'give exactly one of cron and intervalMs' })
  .refine((s) => s.startAt === null || s.endAt === null || Date.parse(s.startAt) < Date.parse(s.endAt), { message: 'startAt must be before endAt' });
export type ScheduleSpec = z.infer<typeof ScheduleSpec>;

/** A schedule was created or changed (the whole spec each time). */
export const ScheduleSaved = defineEvent('ScheduleSaved', {
  scheduleId: z.string(),
  clientKey: z.string().nullable(),
  created: z.boolean(),
  spec: z.record(z.string(), z.unknown()),
});
export type ScheduleSaved = z.infer<typeof ScheduleSaved>;

export const SchedulePaused = defineEvent('SchedulePaused', { scheduleId: z.string(), note: z.string().nullable() });
export type SchedulePaused = z.infer<typeof SchedulePaused>;

export const ScheduleResumed = defineEvent('ScheduleResumed', { scheduleId: z.string(), note: z.string().nullable() });
export type ScheduleResumed = z.infer<typeof ScheduleResumed>;

export const ScheduleDeleted = defineEvent('ScheduleDeleted', { scheduleId: z.string() });
export type ScheduleDeleted = z.infer<typeof ScheduleDeleted>;

/** Someone asked for runs out of the schedule's own time: now (`trigger`) or the ticks of a past range (`backfill`). */
export const ScheduleRunsRequested = defineEvent('ScheduleRunsRequested', {
  scheduleId: z.string(),
  kind: z.enum(['trigger', 'backfill']),
  from: z.string(),
  to: z.string(),
  ticks: z.number().int().nonnegative(),
});
export type ScheduleRunsRequested = z.infer<typeof ScheduleRunsRequested>;

/** Why a tick started no turn. */
export const TickSkipReason = z.enum(['overlap', 'catch_up_window', 'refused']);
export type TickSkipReason = z.infer<typeof TickSkipReason>;

/**
 * Ticks that started no turn: `overlap` (the previous run still ran; policy `skip`, or a second
 * tick under `buffer_one`), `catch_up_window` (missed: older than the window when a ticker came
 * back; `count` may exceed the listed times), `refused` (a tenant limit or the session refused
 * the turn; `detail` says which).
 */
export const ScheduleTicksSkipped = defineEvent('ScheduleTicksSkipped', {
  scheduleId: z.string(),
  reason: TickSkipReason,
  scheduledAt: z.array(z.string()),
  count: z.number().int().positive(),
  detail: z.string().nullable(),
});
export type ScheduleTicksSkipped = z.infer<typeof ScheduleTicksSkipped>;

/** A tick under `buffer_one` that waits for the previous run to end (it starts then). */
export const ScheduleTickBuffered = defineEvent('ScheduleTickBuffered', { scheduleId: z.string(), scheduledAt: z.string() });
export type ScheduleTickBuffered = z.infer<typeof ScheduleTickBuffered>;

/** The admin stream's schedule facts. */
export const ScheduleAdminEvents = [ScheduleSaved, SchedulePaused, ScheduleResumed, ScheduleDeleted, ScheduleRunsRequested] as const;

/** The facts of a schedule's own stream. */
export const ScheduleTickEvent = z.discriminatedUnion('type', [ScheduleTicksSkipped, ScheduleTickBuffered]);
export type ScheduleTickEvent = z.infer<typeof ScheduleTickEvent>;
