import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The one job catalog. Every job the hub runs is declared here: its queue, payload schema,
 * retry budget and how its job id (which makes enqueues idempotent) is derived. Workers fail
 * to boot when a job has no processor or two (see `assertProcessorsCover`).
 */

/** Trace context that travels through the queue into the worker's spans and events. */
export const TraceCarrier = z.object({
  correlationId: z.string(),
  traceparent: z.string().optional(),
  tracestate: z.string().optional(),
});
export type TraceCarrier = z.infer<typeof TraceCarrier>;

export const RunTurnJob = z.object({
  tenantId: z.string().uuid(),
  sessionId: z.string(),
  turnId: z.string(),
  /** Why the turn is (re)scheduled; only for logs: the runner reads what to do from the log. */
  reason: z.enum(['start', 'resume', 'recover']),
  trace: TraceCarrier,
});
export type RunTurnJob = z.infer<typeof RunTurnJob>;

export const ExpireApprovalJob = z.object({
  tenantId: z.string().uuid(),
  sessionId: z.string(),
  approvalId: z.string(),
  /** The deadline this job is for: a turn re-driven after its worker died asks again, with a new one. */
  deadlineAt: z.string().optional(),
  trace: TraceCarrier,
});
export type ExpireApprovalJob = z.infer<typeof ExpireApprovalJob>;

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

// Commands are not jobs: ingress decides them where they arrive (ADR 0025); what they call for
// (a turn to run, an approval deadline) is.
export const JOBS = {
  /** Advances one turn as far as the log allows (model calls, tools), then returns. */
  runTurn: {
    queue: 'turns',
    schema: RunTurnJob,
    attempts: 8,
    backoffMs: 250,
    // One job per (turn, scheduling key): a resume after an approval gets its own id.
    jobId: (p: RunTurnJob, key: string) => `turn-${digest(p.tenantId, p.sessionId, p.turnId, key)}`,
    /** Whose share of the queue a job uses (fair scheduling between tenants, fair-share.ts). */
    tenantOf: (p: RunTurnJob) => p.tenantId,
  },
  /** Denies an approval whose deadline passed while still pending. */
  expireApproval: {
    queue: 'commands',
    schema: ExpireApprovalJob,
    attempts: 5,
    backoffMs: 500,
    jobId: (p: ExpireApprovalJob) => `exp-${digest(p.tenantId, p.sessionId, p.approvalId, p.deadlineAt ?? '')}`,
    tenantOf: (p: ExpireApprovalJob) => p.tenantId,
  },
} as const;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOBS)[N]['schema']>;
export const QUEUE_NAMES = [...new Set(Object.values(JOBS).map((j) => j.queue))];

/** Whose share of its queue a job uses (fair scheduling between tenants: fair-share.ts, slot-share.ts). */
export function tenantOfJob(name: JobName, payload: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entry's tenantOf takes its own payload type
  return (JOBS[name].tenantOf as (p: any) => string)(payload);
}

/** Boot check: every job name has exactly one processor. */
export function assertProcessorsCover(registered: readonly string[]): void {
  const problems: string[] = [];
  for (const name of Object.keys(JOBS)) {
    const n = registered.filter((r) => r === name).length;
    if (n !== 1) problems.push(`${name}: ${n} processors`);
  }
  for (const r of new Set(registered)) if (!(r in JOBS)) problems.push(`${r}: not in the job catalog`);
  if (problems.length) throw new Error(`Job catalog mismatch: ${problems.join('; ')}`);
}
