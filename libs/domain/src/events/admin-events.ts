import { z } from 'zod';
import { defineEvent } from './define-event';
import { WEBHOOK_ADMIN_EVENTS } from './webhook-events';
import { IDENTITY_ADMIN_EVENTS } from './identity-events';
import { ScheduleDeleted, SchedulePaused, ScheduleResumed, ScheduleRunsRequested, ScheduleSaved } from './schedule-events';

// Administration facts: who created or revoked what, on one stream per tenant
// (`ADMIN_STREAM_ID`), beside the tenant's session streams, with the same metadata (actor,
// protocol, correlation id). Never a key's secret: keys appear by their visible prefix.

/** The stream of a tenant's administration events. */
export const ADMIN_STREAM_ID = 'tenant-admin';

export const TenantCreated = defineEvent('TenantCreated', { tenantId: z.string(), name: z.string() });
export type TenantCreated = z.infer<typeof TenantCreated>;

export const ApiKeyCreated = defineEvent('ApiKeyCreated', {
  keyPrefix: z.string(),
  name: z.string(),
  role: z.string(),
  expiresAt: z.string().nullable(),
});
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyRevoked = defineEvent('ApiKeyRevoked', { keyPrefix: z.string() });
export type ApiKeyRevoked = z.infer<typeof ApiKeyRevoked>;

/**
 * The tenant's limits, as an admin set them (the whole set each time; null: no limit). Enforced
 * at ingress before anything is queued or appended.
 */
export const TenantLimits = z.object({
  /** Turns the tenant may submit per rolling minute, over every protocol together. */
  turnsPerMinute: z.number().int().positive().max(1_000_000).nullable().default(null),
  /** Sessions of the tenant running a turn at once (a turn queued behind another of its session does not count). */
  concurrentTurns: z.number().int().positive().max(1_000_000).nullable().default(null),
  /** Model tokens (prompt and completion) the tenant may use per 24 hours, over every session. */
  tokensPerDay: z.number().int().positive().max(1_000_000_000_000).nullable().default(null),
  /** Sessions the tenant may have at once (erased ones do not count). */
  sessions: z.number().int().positive().max(100_000_000).nullable().default(null),
  /** WebSockets (every protocol) the tenant may hold open at once, across every ingress. */
  openSockets: z.number().int().positive().max(10_000_000).nullable().default(null),
  /** Bytes of events (`data` + `metadata` as stored) the tenant's log may grow by per 24 hours. */
  eventBytesPerDay: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().default(null),
  /** Sessions idle longer than this many days are archived and erased by `hub retention run`. */
  retentionDays: z.number().int().positive().max(36_500).nullable().default(null),
});
export type TenantLimits = z.infer<typeof TenantLimits>;

export const TenantLimitsSet = defineEvent('TenantLimitsSet', { limits: TenantLimits });
export type TenantLimitsSet = z.infer<typeof TenantLimitsSet>;

/**
 * A session was erased (on an admin's request, or by retention): its streams' events, snapshots
 * and read-model rows are gone. What is left is this record: which streams, how many events, and
 * each chain's last hash, so a kept export can still be checked against it.
 */
export const SessionErased = defineEvent('SessionErased', {
  sessionId: z.string(),
  reason: z.enum(['request', 'retention']),
  /** Where the session was archived first (retention), or null. */
  archivedTo: z.string().nullable(),
  streams: z.array(z.object({ streamId: z.string(), events: z.number().int().nonnegative(), lastHash: z.string().nullable() })),
});
export type SessionErased = z.infer<typeof SessionErased>;

/**
 * An OpenEnv environment was configured. The configuration itself is on the environment's own
 * stream (`stream`, at `version`; apps/ingress/src/openenv/environment-registry.ts), where every
 * reader of the environment finds it; this record puts the change in the tenant's one list of
 * administration, with who made it.
 */
export const EnvironmentConfigured = defineEvent('EnvironmentConfigured', { env: z.string(), stream: z.string(), version: z.number().int().positive() });
export type EnvironmentConfigured = z.infer<typeof EnvironmentConfigured>;

/**
 * The tenant's approval policy, as an admin set it (the whole policy each time; issue 23, ADR
 * 0039). `version` counts the tenant's policies from 1; every `ApprovalRequested` names the version
 * and rule that decided it. The shape of `policy` is @hub/policy's `TenantPolicy`, validated before
 * it is recorded (this pure lib cannot import it: the policy lib builds on this one).
 */
export const ApprovalPolicySet = defineEvent('ApprovalPolicySet', { version: z.number().int().positive(), policy: z.record(z.string(), z.unknown()) });
export type ApprovalPolicySet = z.infer<typeof ApprovalPolicySet>;

export const AdminEvent = z.discriminatedUnion('type', [
  TenantCreated,
  ApiKeyCreated,
  ApiKeyRevoked,
  TenantLimitsSet,
  SessionErased,
  EnvironmentConfigured,
  ApprovalPolicySet,
  ScheduleSaved,
  SchedulePaused,
  ScheduleResumed,
  ScheduleDeleted,
  ScheduleRunsRequested,
  ...WEBHOOK_ADMIN_EVENTS,
  ...IDENTITY_ADMIN_EVENTS,
]);
export type AdminEvent = z.infer<typeof AdminEvent>;

/** The tenant's limits as its admin stream last set them (none set: every limit null). */
export function limitsOf(adminEvents: readonly { type: string; data: unknown }[]): TenantLimits {
  const last = [...adminEvents].reverse().find((e) => e.type === 'TenantLimitsSet');
  return TenantLimits.parse((last?.data as { limits?: unknown } | undefined)?.limits ?? {});
}
