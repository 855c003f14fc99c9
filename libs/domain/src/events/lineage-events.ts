import { z } from 'zod';
import { defineEvent } from './define-event';

// Where a session's history came from, when it did not start on its own: a fork of another
// session at a cursor, or a re-drive of another session's user turns. Declared here, not in
// events.ts, so the audit-and-replay work stays additive; `HubEvent` lists them.

/**
 * The events before this one are copies of `parentSessionId`'s history up to `parentCursor`
 * (its global position), appended in one transaction with this event. The parent is untouched.
 */
export const SessionForked = defineEvent('SessionForked', {
  parentSessionId: z.string(),
  /** The parent's global position the fork was taken at: the last copied event's cursor. */
  parentCursor: z.number().int().nonnegative(),
  /** The same point as the parent's stream position (its event count up to there). */
  parentStreamPosition: z.number().int().nonnegative(),
  copiedEvents: z.number().int().nonnegative(),
});
export type SessionForked = z.infer<typeof SessionForked>;

/** What a re-drive runs the recorded user turns against instead of the session's own model. */
export const RedriveTarget = z.union([z.object({ model: z.string().min(1).max(200) }), z.object({ harness: z.record(z.string(), z.unknown()) })]);
export type RedriveTarget = z.infer<typeof RedriveTarget>;

/**
 * This session re-runs `sourceSessionId`'s user turns (same turn ids, same prompts) against
 * `target`. With `tools: 'recorded'` a tool call that matches a recorded one of the source (same
 * tool, same arguments, in the same turn) gets the recorded result without running.
 */
export const SessionRedriven = defineEvent('SessionRedriven', {
  sourceSessionId: z.string(),
  /** The source's cursor when the re-drive read it; later turns of the source are not re-driven. */
  sourceCursor: z.number().int().nonnegative(),
  /** Null: the hub's configured model, as the source's turns ran (a reproducibility check). */
  target: RedriveTarget.nullable(),
  tools: z.enum(['recorded', 'live']),
  turnIds: z.array(z.string()),
});
export type SessionRedriven = z.infer<typeof SessionRedriven>;

/** Where a re-driven turn's context says what it re-runs: the worker reads it to serve recorded tool results. */
export const REDRIVE_CONTEXT_KEY = 'redrive';
export const RedriveContext = z.object({
  sourceSessionId: z.string(),
  sourceTurnId: z.string(),
  tools: z.enum(['recorded', 'live']),
});
export type RedriveContext = z.infer<typeof RedriveContext>;

/** The re-drive a turn's context names, or null (an ordinary turn, or a malformed entry: no recorded results are served for it). */
export function redriveOf(context: Record<string, unknown>): RedriveContext | null {
  const parsed = RedriveContext.safeParse(context[REDRIVE_CONTEXT_KEY]);
  return parsed.success ? parsed.data : null;
}
