import type { Actor } from '../api/types';
import type { LoggedEvent } from './useEventLog';

/** One approval as the events up to a cursor tell it. */
export interface ApprovalAt {
  approvalId: string;
  toolName: string;
  status: 'pending' | 'approved' | 'denied';
  /** The tenant policy's version and rule that asked; null for the tool's own policy. */
  policy: { version: number; rule: string; ruleIndex: number | null } | null;
  quorum: { required: number; approvers: { roles?: string[]; keys?: string[] } | null; requesterMayApprove: boolean } | null;
  /** Each distinct approval so far (an `ApprovalVoted`, and the `ApprovalResolved` that reached the quorum). */
  votes: { by: Actor; via: string }[];
  resolvedBy: { by: Actor; via: string } | null;
}

/** The approvals of a session's events, in the order they were asked. */
export function approvalsOf(events: readonly LoggedEvent[]): ApprovalAt[] {
  const byId = new Map<string, ApprovalAt>();
  for (const e of events) {
    if (e.type === 'ApprovalRequested') {
      const d = e.data;
      const q = d.quorum;
      byId.set(d.approvalId, {
        approvalId: d.approvalId,
        toolName: d.toolName,
        status: 'pending',
        policy: d.policy && d.policy.version > 0 ? d.policy : null,
        quorum: q ? { required: q.required, approvers: q.approvers ?? null, requesterMayApprove: q.requesterMayApprove } : null,
        votes: [],
        resolvedBy: null,
      });
    } else if (e.type === 'ApprovalVoted') {
      byId.get(e.data.approvalId)?.votes.push({ by: e.data.by, via: e.data.via });
    } else if (e.type === 'ApprovalResolved') {
      const a = byId.get(e.data.approvalId);
      if (!a) continue;
      a.status = e.data.decision;
      a.resolvedBy = { by: e.data.by, via: e.data.via };
      if (a.quorum && e.data.decision === 'approved') a.votes.push({ by: e.data.by, via: e.data.via });
    }
  }
  return [...byId.values()];
}
