import { z } from 'zod';
import { defineEvent } from './define-event';

// Live input that reaches a turn while it runs (Harn bridge: `session/inject` mode `steer`,
// `session/remind`). Declared here, not in events.ts, so the work stays additive; `HubEvent`
// lists them. Every delivery is recorded at a step boundary (before a model call), so a replay
// rebuilds exactly the prompt the model saw.

/** Where live input may enter a turn: `steer` at its next step boundary; anything else after it ends. */
export const DELIVERY_CONTEXT_KEY = 'delivery';

/** Whether a requested turn asked to be delivered into the running turn (`context.delivery === 'steer'`). */
export function isSteer(context: Record<string, unknown>): boolean {
  return context[DELIVERY_CONTEXT_KEY] === 'steer';
}

/**
 * A queued `steer` turn's message delivered into the running turn `turnId` before its model call
 * `beforeStep`: the queued turn `fromTurnId` never starts (it counts as delivered), and its
 * prompt is a user message of `turnId` from then on. `messageId` is the queued turn's user message id.
 */
export const UserMessageInjected = defineEvent('UserMessageInjected', {
  turnId: z.string(),
  fromTurnId: z.string(),
  messageId: z.string(),
  text: z.string(),
  beforeStep: z.number().int().nonnegative(),
});
export type UserMessageInjected = z.infer<typeof UserMessageInjected>;

/** Which seam drains a reminder (Harn): `interrupt_immediate` / `finish_step` at the next step boundary, `audit_only` at turn end, never to the model. */
export const ReminderMode = z.enum(['interrupt_immediate', 'finish_step', 'audit_only']);
export type ReminderMode = z.infer<typeof ReminderMode>;

/** Harn's `role_hint`: a request for how the reminder is rendered, not a guarantee. */
export const ReminderRoleHint = z.enum(['system', 'developer', 'user_block', 'ephemeral_cache']);
export type ReminderRoleHint = z.infer<typeof ReminderRoleHint>;

/** The reminder as it was queued (Harn reminder spec, camelCased). */
export const Reminder = z.object({
  reminderId: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  dedupeKey: z.string().nullable(),
  /** Turns it stays in the prompt once rendered (ending turns count down); null: until replaced. */
  ttlTurns: z.number().int().positive().nullable(),
  roleHint: ReminderRoleHint,
  mode: ReminderMode,
  propagate: z.enum(['all', 'session', 'none']).nullable(),
  preserveOnCompact: z.boolean(),
  /** Who produced it, e.g. `host` for `session/remind`. */
  source: z.string(),
  /** Host metadata (`_meta`), kept as given. */
  meta: z.record(z.string(), z.unknown()),
});
export type Reminder = z.infer<typeof Reminder>;

/** Ambient context queued for the model (not a user message). A pending reminder with the same `dedupeKey` is replaced. */
export const ReminderQueued = defineEvent('ReminderQueued', Reminder.shape);
export type ReminderQueued = z.infer<typeof ReminderQueued>;

/** A pending reminder withdrawn before delivery. */
export const ReminderRevoked = defineEvent('ReminderRevoked', { reminderId: z.string() });
export type ReminderRevoked = z.infer<typeof ReminderRevoked>;

/**
 * A pending reminder drained by turn `turnId`: rendered into the prompt before model call
 * `beforeStep` as `renderedRole`, or (`audit_only`: both null) recorded at turn end and never shown.
 */
export const ReminderEmitted = defineEvent('ReminderEmitted', {
  turnId: z.string(),
  reminderId: z.string(),
  beforeStep: z.number().int().nonnegative().nullable(),
  renderedRole: z.literal('system').nullable(),
});
export type ReminderEmitted = z.infer<typeof ReminderEmitted>;
