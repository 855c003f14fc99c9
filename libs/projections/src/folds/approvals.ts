import { sessionIdOf, type Actor, type EventOf, type QuorumTerms } from '@hub/domain';
import type { ProjectedEvent, ProjectionDef } from '../projection';

/** One approval, pending or resolved, with who raised and who answered it, where and why. */
export interface ApprovalRow {
  [column: string]: unknown;
  tenant_id: string;
  session_id: string;
  approval_id: string;
  turn_id: string;
  tool_call_id: string;
  tool_name: string;
  arguments: unknown;
  risk_tier: string;
  request_reason: string;
  requested_via: string | null;
  requested_at: string;
  deadline_at: string | null;
  status: 'pending' | 'resolved';
  /** `abandoned`: its turn ended (completed, failed, cancelled) before anyone answered. */
  decision: 'approved' | 'denied' | 'abandoned' | 'escalated' | null;
  resolved_by: Actor | null;
  resolved_via: string | null;
  resolved_at: string | null;
  resolution_reason: string | null;
  /** Only for an approval with quorum terms (ADR 0048): the terms and each approval so far. */
  quorum: ApprovalQuorum | null;
  requested_position: number;
  updated_position: number;
}

/** One approval of an approval that needs several (an `ApprovalVoted`, or the `ApprovalResolved` that reached the quorum). */
export interface ApprovalVote {
  by: Actor;
  via: string;
  at: string;
  reason: string | null;
}

export interface ApprovalQuorum {
  required: number;
  approvers: QuorumTerms['approvers'] | null;
  requesterMayApprove: boolean;
  votes: ApprovalVote[];
}

export const APPROVAL_STATUSES = ['pending', 'resolved'] as const;

const APPROVAL_READS: ReadonlySet<string> = new Set(['ApprovalRequested', 'ApprovalVoted', 'ApprovalResolved', 'TurnCompleted', 'TurnFailed', 'TurnCancelled']);

const ENDED: Record<string, string> = { TurnCompleted: 'completed', TurnFailed: 'failed', TurnCancelled: 'cancelled' };

function requested(e: ProjectedEvent, data: EventOf<'ApprovalRequested'>['data']): ApprovalRow {
  return {
    tenant_id: e.tenantId,
    session_id: sessionIdOf(e.streamId) as string,
    approval_id: data.approvalId,
    turn_id: data.turnId,
    tool_call_id: data.toolCallId,
    tool_name: data.toolName,
    arguments: data.input ?? null,
    risk_tier: data.riskTier,
    request_reason: data.reason,
    requested_via: e.metadata?.protocol ?? null,
    requested_at: e.createdAt,
    deadline_at: data.deadlineAt,
    status: 'pending',
    decision: null,
    resolved_by: null,
    resolved_via: null,
    resolved_at: null,
    resolution_reason: null,
    quorum: data.quorum
      ? { required: data.quorum.required, approvers: data.quorum.approvers ?? null, requesterMayApprove: data.quorum.requesterMayApprove, votes: [] }
      : null,
    requested_position: e.globalPosition,
    updated_position: e.globalPosition,
  };
}

/**
 * Pure: the approvals of one turn after an event of that turn. An answer resolves its approval;
 * the turn's end abandons whatever is still pending (the decider refuses a late answer).
 */
export function evolveApprovals(rows: readonly ApprovalRow[], e: ProjectedEvent): ApprovalRow[] {
  if (e.type === 'ApprovalRequested') {
    const data = e.data as EventOf<'ApprovalRequested'>['data'];
    if (rows.some((r) => r.approval_id === data.approvalId)) return [...rows];
    // An escalation (ADR 0048) closes the approval whose deadline passed, then asks anew.
    const before =
      data.escalatedFrom === undefined
        ? rows
        : rows.map((r) =>
            r.approval_id === data.escalatedFrom && r.status === 'pending'
              ? {
                  ...r,
                  status: 'resolved' as const,
                  decision: 'escalated' as const,
                  resolved_by: e.metadata?.actor ?? null,
                  resolved_via: e.metadata?.protocol ?? null,
                  resolved_at: e.createdAt,
                  resolution_reason: `nobody answered by the deadline: escalated as ${data.approvalId}`,
                  updated_position: e.globalPosition,
                }
              : r,
          );
    return [...before, requested(e, data)];
  }
  if (e.type === 'ApprovalVoted') {
    const d = e.data as EventOf<'ApprovalVoted'>['data'];
    return rows.map((r) =>
      r.approval_id === d.approvalId && r.status === 'pending' && r.quorum
        ? { ...r, quorum: withVote(r.quorum, { by: d.by, via: d.via, at: e.createdAt, reason: d.reason }), updated_position: e.globalPosition }
        : r,
    );
  }
  if (e.type === 'ApprovalResolved') {
    const d = e.data as EventOf<'ApprovalResolved'>['data'];
    return rows.map((r) =>
      r.approval_id === d.approvalId && r.status === 'pending'
        ? {
            ...r,
            // The approval that reached the quorum is a vote too (a denial ends it and is not one; a deadline is the hub's).
            ...(r.quorum && d.decision === 'approved' && d.by.type !== 'system'
              ? { quorum: withVote(r.quorum, { by: d.by, via: d.via, at: e.createdAt, reason: d.reason }) }
              : {}),
            status: 'resolved',
            decision: d.decision,
            resolved_by: d.by,
            resolved_via: d.via,
            resolved_at: e.createdAt,
            resolution_reason: d.reason,
            updated_position: e.globalPosition,
          }
        : r,
    );
  }
  const outcome = ENDED[e.type];
  if (!outcome) return [...rows];
  const by = e.type === 'TurnCancelled' ? (e.data as EventOf<'TurnCancelled'>['data']).by : (e.metadata?.actor ?? null);
  return rows.map((r) =>
    r.status === 'pending'
      ? {
          ...r,
          status: 'resolved',
          decision: 'abandoned',
          resolved_by: by,
          resolved_via: e.metadata?.protocol ?? null,
          resolved_at: e.createdAt,
          resolution_reason: `the turn ${outcome} first`,
          updated_position: e.globalPosition,
        }
      : r,
  );
}

function withVote(q: ApprovalQuorum, vote: ApprovalVote): ApprovalQuorum {
  return { ...q, votes: [...q.votes, vote] };
}

export const approvalsProjection: ProjectionDef<ApprovalRow> = {
  name: 'approvals',
  table: {
    table: 'read_approvals',
    key: ['tenant_id', 'session_id', 'approval_id'],
    // A turn's end changes every approval of the turn, so the group is the turn.
    group: [
      { column: 'tenant_id', type: 'uuid' },
      { column: 'session_id', type: 'text' },
      { column: 'turn_id', type: 'text' },
    ],
    columns: [
      'tenant_id',
      'session_id',
      'approval_id',
      'turn_id',
      'tool_call_id',
      'tool_name',
      'arguments',
      'risk_tier',
      'request_reason',
      'requested_via',
      'requested_at',
      'deadline_at',
      'status',
      'decision',
      'resolved_by',
      'resolved_via',
      'resolved_at',
      'resolution_reason',
      'quorum',
      'requested_position',
      'updated_position',
    ],
  },
  reads: APPROVAL_READS,
  groupOf: (e) => {
    if (!APPROVAL_READS.has(e.type)) return null;
    const sessionId = sessionIdOf(e.streamId);
    const turnId = (e.data as { turnId?: unknown }).turnId;
    return sessionId === null || typeof turnId !== 'string' ? null : [e.tenantId, sessionId, turnId];
  },
  evolve: evolveApprovals,
};
