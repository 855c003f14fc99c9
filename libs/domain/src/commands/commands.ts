import { z } from 'zod';
import { BusyPolicy, Reminder, TurnContext } from '../events/events';
import { SESSION_ID_PATTERN } from '../events/recorded';

// The canonical commands: imperative, declared once. Every protocol's `decode` produces these;
// the command's metadata (id, tenant, time, actor, protocol) travels beside it.

const SessionId = z.string().regex(SESSION_ID_PATTERN, 'session id: 1-128 of [A-Za-z0-9._:@-]');

export const SubmitTurn = z.object({
  type: z.literal('SubmitTurn'),
  sessionId: SessionId,
  /** Chosen at ingress (deterministic from the request id where the protocol has one). */
  turnId: z.string().min(1),
  prompt: z.string().min(1),
  context: TurnContext.default({}),
  busyPolicy: BusyPolicy.default('enqueue'),
});
export type SubmitTurn = z.infer<typeof SubmitTurn>;

export const CancelTurn = z.object({
  type: z.literal('CancelTurn'),
  sessionId: SessionId,
  /** Omitted: the active turn. */
  turnId: z.string().optional(),
  reason: z.enum(['user', 'timeout']).default('user'),
});
export type CancelTurn = z.infer<typeof CancelTurn>;

export const ResolveApproval = z.object({
  type: z.literal('ResolveApproval'),
  sessionId: SessionId,
  approvalId: z.string().min(1),
  decision: z.enum(['approved', 'denied']),
  reason: z.string().max(2000).nullable().default(null),
  /**
   * The approver's edit of the call's arguments (Harn `{granted: true, args}`): the tool runs
   * with these instead. Only with `approved`; the runner still checks them against the tool.
   */
  input: z.record(z.string(), z.unknown()).optional(),
  /** The hub's own answer when the deadline passed (a system actor only): the approval's `onExpiry` decides (ADR 0048). */
  expired: z.literal(true).optional(),
});
export type ResolveApproval = z.infer<typeof ResolveApproval>;

/** Queues ambient context for the model (Harn `session/remind`); the reminder id is chosen at ingress. */
export const QueueReminder = z.object({
  type: z.literal('QueueReminder'),
  sessionId: SessionId,
  reminder: Reminder.extend({ reminderId: z.string().min(1), body: z.string().min(1) }),
});
export type QueueReminder = z.infer<typeof QueueReminder>;

/** Withdraws a reminder before a turn drains it (Harn `session/revoke_reminder`). */
export const RevokeReminder = z.object({
  type: z.literal('RevokeReminder'),
  sessionId: SessionId,
  reminderId: z.string().min(1),
});
export type RevokeReminder = z.infer<typeof RevokeReminder>;

export const HubCommand = z.discriminatedUnion('type', [SubmitTurn, CancelTurn, ResolveApproval, QueueReminder, RevokeReminder]);
export type HubCommand = z.infer<typeof HubCommand>;
export type HubCommandType = HubCommand['type'];
