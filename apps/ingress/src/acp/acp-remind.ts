import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { foldSession, pendingReminders, ReminderMode, ReminderRoleHint, sessionStreamId, type HubEvent, type Reminder } from '@hub/domain';
import { AcpRpcError, checkParams, issueText, RPC } from '@hub/protocol-acp';
import type { AcpConnection } from './acp.connection';

// Reminders (spec: session/remind): ambient context for the model, never a user message. Queued
// as ReminderQueued; the turn runner renders pending ones into the system prompt at the next step
// boundary (ReminderEmitted → `reminder_emitted`), `audit_only` ones drain at turn end unseen.
// Unknown top-level options are HARN-RMD-001, a malformed payload HARN-RMD-002 (both -32602).

/** The reminder methods served here. */
export const REMIND_METHODS = ['session/remind', 'session/revoke_reminder'] as const;

const OPTIONS = ['sessionId', 'body', 'tags', 'dedupe_key', 'ttl_turns', 'preserve_on_compact', 'propagate', 'role_hint', 'mode', '_meta'];

const RemindParams = z.strictObject({
  sessionId: z.string().min(1).optional(),
  body: z.string().trim().min(1),
  tags: z.array(z.string().min(1)).default([]),
  dedupe_key: z.string().min(1).nullish(),
  ttl_turns: z.number().int().positive().nullish(),
  preserve_on_compact: z.boolean().default(false),
  propagate: z.enum(['all', 'session', 'none']).nullish(),
  role_hint: ReminderRoleHint.default('system'),
  mode: ReminderMode.default('finish_step'),
  _meta: z.record(z.string(), z.unknown()).default({}),
});
const RevokeParams = z.looseObject({ sessionId: z.string().min(1), reminderId: z.string().min(1) });

const rmd = (code: 'HARN-RMD-001' | 'HARN-RMD-002', reason: string, detail: string, extra: Record<string, unknown> = {}) =>
  new AcpRpcError(RPC.INVALID_PARAMS, `${code}: ${detail}`, { code, reason, ...extra });

/** A validated `session/remind` payload, or the spec's HARN-RMD error. */
export function parseRemind(params: unknown): z.infer<typeof RemindParams> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw rmd('HARN-RMD-002', 'invalid_shape', 'reminder params must be an object');
  const unknown = Object.keys(params).filter((k) => !OPTIONS.includes(k));
  if (unknown.length)
    throw rmd('HARN-RMD-001', 'unknown_option', `unknown reminder option(s): ${unknown.join(', ')} (host metadata belongs under _meta)`, { options: unknown });
  const r = RemindParams.safeParse(params);
  if (!r.success) throw rmd('HARN-RMD-002', 'invalid_shape', `invalid reminder: ${issueText(r.error)}`);
  return r.data;
}

/** The session a reminder is for: named, or the one session open on this connection. */
function sessionOf(c: AcpConnection, sessionId: string | undefined): string {
  if (sessionId) return sessionId;
  const open = [...c.sessions.keys()];
  if (open.length === 1 && open[0]) return open[0];
  throw rmd('HARN-RMD-002', 'invalid_shape', 'sessionId is required when the connection has not exactly one session open');
}

async function remind(c: AcpConnection, params: unknown) {
  const p = parseRemind(params);
  const sessionId = sessionOf(c, p.sessionId);
  await c.assertControl(sessionId);
  await c.session(sessionId);
  const reminderId = `reminder-${randomUUID()}`;
  const reminder: Reminder = {
    reminderId,
    body: p.body,
    tags: p.tags,
    dedupeKey: p.dedupe_key ?? null,
    ttlTurns: p.ttl_turns ?? null,
    roleHint: p.role_hint,
    mode: p.mode,
    propagate: p.propagate ?? null,
    preserveOnCompact: p.preserve_on_compact,
    source: 'host',
    meta: p._meta,
  };
  await c.dispatch({ type: 'QueueReminder', sessionId, reminder }, `acp:remind:${reminderId}`);
  return { reminderId, status: 'accepted' };
}

async function revoke(c: AcpConnection, params: unknown) {
  const { sessionId, reminderId } = checkParams(RevokeParams, 'session/revoke_reminder', params);
  const race = (reason: string) => new AcpRpcError(RPC.INVALID_PARAMS, `reminder ${reminderId}: ${reason}`, { reason, reminderId });
  if (!(await c.mayControl(sessionId))) throw race('not_owner_or_not_authorized');
  const state = foldSession((await c.deps.store.readStream(c.principal.tenantId, sessionStreamId(sessionId))).events as HubEvent[]);
  const tracked = state.status === 'new' ? undefined : state.reminders.get(reminderId);
  if (!tracked) throw race('unknown_reminder_id');
  if (tracked.status === 'delivered') throw race('already_delivered');
  if (tracked.status !== 'pending') return { reminderId, status: 'already_revoked' };
  try {
    await c.dispatch({ type: 'RevokeReminder', sessionId, reminderId }, `acp:revoke-reminder:${reminderId}`);
  } catch (e) {
    // A turn drained it between our read and the revoke.
    if (e instanceof AcpRpcError && /already_delivered/.test(e.message)) throw race('already_delivered');
    throw e;
  }
  return { reminderId, status: 'revoked' };
}

/** session/remind and session/revoke_reminder. */
export function reminders(c: AcpConnection, method: string, params: unknown): Promise<unknown> {
  if (method === 'session/remind') return remind(c, params);
  if (method === 'session/revoke_reminder') return revoke(c, params);
  return Promise.reject(new AcpRpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`));
}

/**
 * `session/pending_injections` from the log, so every connection sees the same queue: pending
 * injected messages (`kind: "user"`) and reminders (`kind: "reminder"`), in FIFO (log) order.
 */
export function pendingInjections(events: readonly HubEvent[]) {
  const state = foldSession(events);
  const queued = new Set(state.status === 'new' ? [] : state.queue.map((q) => q.turnId));
  const pending = new Set(pendingReminders(state).map((r) => r.reminderId));
  const rows: Record<string, unknown>[] = [];
  for (const e of events) {
    if (e.type === 'TurnRequested' && queued.has(e.data.turnId)) {
      const acp = e.data.context['acp'] as { messageId?: unknown; inject?: unknown } | undefined;
      if (typeof acp?.messageId === 'string') rows.push({ kind: 'user', messageId: acp.messageId, mode: acp.inject ?? 'queue', content: e.data.prompt });
    } else if (e.type === 'ReminderQueued' && pending.has(e.data.reminderId)) {
      const d = e.data;
      rows.push({
        kind: 'reminder',
        reminderId: d.reminderId,
        mode: d.mode,
        body: d.body,
        tags: d.tags,
        dedupeKey: d.dedupeKey,
        ttlTurns: d.ttlTurns,
        roleHint: d.roleHint,
        source: d.source,
      });
    }
  }
  return { pendingCount: rows.length, injections: rows };
}
