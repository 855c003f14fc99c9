import type { Actor } from '@hub/domain';

/** A row as `pg` returns it: bigint as text, timestamptz as Date, jsonb parsed. */
export type DbRow = Record<string, unknown>;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A session in the tenant's list (`GET /v1/sessions`). */
export interface SessionView {
  sessionId: string;
  status: string;
  openedVia: string | null;
  /** The key prefix of the API key that opened it. */
  openedBy: string | null;
  title: string | null;
  turnCount: number;
  activeTurnId: string | null;
  pendingApprovals: number;
  usage: Usage;
  createdAt: string;
  lastActivityAt: string;
  /** Global position of the session's last event (a cursor for its stream). */
  position: number;
}

/** A session erased (by `DELETE /v1/sessions/ID` or retention): the live list's `erased` frame. */
export interface ErasedSessionView {
  sessionId: string;
  erasedAt: string;
  /** Global position of the tombstone (`SessionErased` on the tenant's admin stream). */
  position: number;
}

/** One frame of the live sessions list: a session that moved, or one erased. */
export type SessionChange = { event: 'session'; data: SessionView } | { event: 'erased'; data: ErasedSessionView };

/** A turn of a session (`GET /v1/sessions/ID/turns`). */
export interface TurnView {
  turnId: string;
  status: string;
  requestedVia: string | null;
  requestedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  provider: string | null;
  model: string | null;
  modelCalls: number;
  toolCalls: number;
  usage: Usage;
  endReason: string | null;
  errorCode: string | null;
}

/** An approval of the tenant (`GET /v1/approvals`, and each frame of the live feed). */
export interface ApprovalView {
  approvalId: string;
  sessionId: string;
  turnId: string;
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  riskTier: string;
  reason: string;
  requestedVia: string | null;
  requestedAt: string;
  deadlineAt: string | null;
  status: 'pending' | 'resolved';
  resolution: { decision: string; by: Actor | null; via: string | null; at: string; reason: string | null } | null;
  /**
   * For an approval that needs several approvers, or named ones, or not the requester (ADR 0048):
   * how many distinct approvals it needs, from whom, and each approval so far (`approvals` of
   * `required`); null when the first answer decides.
   */
  quorum: {
    required: number;
    approvals: number;
    approvers: { roles?: string[]; keys?: string[]; groups?: string[] } | null;
    requesterMayApprove: boolean;
    votes: { by: Actor; via: string; at: string; reason: string | null }[];
  } | null;
  /** Global position of the event that last changed it: the live feed's cursor. */
  position: number;
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const usage = (r: DbRow): Usage => ({
  promptTokens: Number(r.prompt_tokens),
  completionTokens: Number(r.completion_tokens),
  totalTokens: Number(r.total_tokens),
});

export function sessionView(r: DbRow): SessionView {
  return {
    sessionId: String(r.session_id),
    status: String(r.status),
    openedVia: str(r.opened_via),
    openedBy: str(r.opened_by),
    title: str(r.title),
    turnCount: Number(r.turn_count),
    activeTurnId: str(r.active_turn_id),
    pendingApprovals: Number(r.pending_approvals),
    usage: usage(r),
    createdAt: iso(r.opened_at),
    lastActivityAt: iso(r.last_activity_at),
    position: Number(r.last_position),
  };
}

export function turnView(r: DbRow): TurnView {
  return {
    turnId: String(r.turn_id),
    status: String(r.status),
    requestedVia: str(r.requested_via),
    requestedAt: iso(r.requested_at),
    startedAt: isoOrNull(r.started_at),
    endedAt: isoOrNull(r.ended_at),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    provider: str(r.provider),
    model: str(r.model),
    modelCalls: Number(r.model_calls),
    toolCalls: Number(r.tool_calls),
    usage: usage(r),
    endReason: str(r.end_reason),
    errorCode: str(r.error_code),
  };
}

export function approvalView(r: DbRow): ApprovalView {
  const resolved = r.status === 'resolved';
  return {
    approvalId: String(r.approval_id),
    sessionId: String(r.session_id),
    turnId: String(r.turn_id),
    toolCallId: String(r.tool_call_id),
    toolName: String(r.tool_name),
    arguments: r.arguments ?? null,
    riskTier: String(r.risk_tier),
    reason: String(r.request_reason),
    requestedVia: str(r.requested_via),
    requestedAt: iso(r.requested_at),
    deadlineAt: isoOrNull(r.deadline_at),
    status: resolved ? 'resolved' : 'pending',
    resolution: resolved
      ? {
          decision: String(r.decision),
          by: (r.resolved_by as Actor | null) ?? null,
          via: str(r.resolved_via),
          at: iso(r.resolved_at),
          reason: str(r.resolution_reason),
        }
      : null,
    quorum: quorumView(r.quorum),
    position: Number(r.updated_position),
  };
}

function quorumView(v: unknown): ApprovalView['quorum'] {
  if (v === null || v === undefined || typeof v !== 'object') return null;
  const q = v as Omit<NonNullable<ApprovalView['quorum']>, 'approvals'>;
  return { required: q.required, approvals: q.votes.length, approvers: q.approvers ?? null, requesterMayApprove: q.requesterMayApprove, votes: q.votes };
}
