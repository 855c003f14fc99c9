import { foldSession, recordedDeadline, sessionStreamId, type HubEvent } from '@hub/domain';
import type { HubQueues } from './queues';
import type { TraceCarrier } from './catalog';

/** The log as the deadline scan reads it (the turn reconciler's: system work over every tenant). */
export interface DeadlineLog {
  query<R extends object>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
  readStream(tenantId: string, streamId: string): Promise<{ version: number; events: readonly HubEvent[] }>;
}

export interface ApprovalDeadlinesOptions {
  log: DeadlineLog;
  queues: HubQueues;
  /** Pending approvals looked at per scan; the next scan goes on after the last one (then starts over). */
  batch?: number;
  trace?: () => TraceCarrier;
  onRescheduled?: (deadline: LostDeadline) => void;
}

/** A pending approval's deadline that Redis had no job for, scheduled again. */
export interface LostDeadline {
  tenantId: string;
  sessionId: string;
  approvalId: string;
  deadlineAt: string;
  /** How long from the scan until the job runs (0: the deadline has passed already). */
  delayMs: number;
}

interface Row {
  tenant_id: string;
  session_id: string;
  approval_id: string;
  deadline_at: Date | string;
}

/** The approvals read model's pending approvals with a deadline, in deadline order (a partial index holds just them). */
const PENDING_WITH_DEADLINE = `
SELECT tenant_id::text AS tenant_id, session_id, approval_id, deadline_at FROM read_approvals
 WHERE status = 'pending' AND deadline_at IS NOT NULL`;
const ORDER = ` ORDER BY deadline_at, tenant_id, session_id, approval_id`;
const FIRST = `${PENDING_WITH_DEADLINE}${ORDER} LIMIT $1`;
const AFTER = `${PENDING_WITH_DEADLINE} AND (deadline_at, tenant_id, session_id, approval_id) > ($2::timestamptz, $3::uuid, $4, $5)${ORDER} LIMIT $1`;

/**
 * Finds the deadlines of pending approvals that no `expireApproval` job holds (Redis restarted
 * without its data, or evicted it) and schedules them again, to run at the deadline (at once
 * when it has passed). ADR 0050.
 *
 * The approvals read model says which approvals to look at; the log decides: an approval is
 * re-scheduled only when its session's stream still has it pending, with the deadline its
 * request recorded. So a read model behind the log costs a look, never a wrong deadline, and an
 * approval answered meanwhile is left alone (its job would find nothing to expire anyway).
 * Idempotent: the job id is derived from the approval and its deadline, and an approval whose
 * job Redis holds, in any state, is skipped before the log is read. Not locked itself: the
 * turn reconciler runs it inside its scan lock.
 */
export class ApprovalDeadlines {
  /** Where the next scan goes on: the last row of a full batch, or null to start from the earliest deadline. */
  private after: Row | null = null;

  constructor(private readonly opts: ApprovalDeadlinesOptions) {}

  /** One scan: the deadlines it scheduled again. */
  async reschedule(now = Date.now()): Promise<LostDeadline[]> {
    const rows = await this.candidates();
    const out: LostDeadline[] = [];
    for (const row of rows) {
      const approval = { tenantId: row.tenant_id, sessionId: row.session_id, approvalId: row.approval_id };
      if ((await this.state({ ...approval, deadlineAt: iso(row.deadline_at) })) !== 'unknown') continue;
      const deadlineAt = await this.recordedDeadline(approval.tenantId, approval.sessionId, approval.approvalId);
      if (deadlineAt === null) continue;
      // The read model's copy may round or lag: the job is the one for the recorded deadline.
      if (deadlineAt !== iso(row.deadline_at) && (await this.state({ ...approval, deadlineAt })) !== 'unknown') continue;
      const lost = { ...approval, deadlineAt, delayMs: Math.max(0, Date.parse(deadlineAt) - now) };
      await this.opts.queues.enqueue('expireApproval', { ...approval, deadlineAt, trace: this.trace() }, { delayMs: lost.delayMs });
      out.push(lost);
      this.opts.onRescheduled?.(lost);
    }
    return out;
  }

  private async candidates(): Promise<Row[]> {
    const batch = this.opts.batch ?? 500;
    const a = this.after;
    const { rows } = a
      ? await this.opts.log.query<Row>(AFTER, [batch, a.deadline_at, a.tenant_id, a.session_id, a.approval_id])
      : await this.opts.log.query<Row>(FIRST, [batch]);
    this.after = rows.length === batch ? rows[rows.length - 1] : null;
    return rows;
  }

  private state(p: { tenantId: string; sessionId: string; approvalId: string; deadlineAt: string }): Promise<string> {
    return this.opts.queues.jobState('expireApproval', { ...p, trace: { correlationId: 'reconciler' } });
  }

  /** The deadline the log recorded for a pending approval; null when the log has it answered (or has no deadline). */
  private async recordedDeadline(tenantId: string, sessionId: string, approvalId: string): Promise<string | null> {
    const { events } = await this.opts.log.readStream(tenantId, sessionStreamId(sessionId));
    const state = foldSession(events);
    if (state.status !== 'active' || !state.pendingApprovals.has(approvalId)) return null;
    return recordedDeadline(events, approvalId) ?? null;
  }

  private trace(): TraceCarrier {
    return this.opts.trace?.() ?? { correlationId: 'reconciler' };
  }
}

function iso(t: Date | string): string {
  return new Date(t).toISOString();
}
