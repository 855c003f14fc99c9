import type { Actor, Approval } from '../api/types';
import { actorName } from '../ui/format';

/** The quorum terms and votes of an approval that needs several approvers (ADR 0048), as the inbox reads them. */
export type Quorum = NonNullable<Approval['quorum']>;

/** "role admin or role approver", "key hub_ab12", or anyone whose role may answer approvals. */
export function approversText(approvers: Quorum['approvers']): string {
  const named = [...(approvers?.roles ?? []).map((r) => `role ${r}`), ...(approvers?.keys ?? []).map((k) => `key ${k}`)];
  return named.length > 0 ? named.join(' or ') : 'anyone who may answer approvals';
}

/** "1 of 2 approvals". */
export function countText(q: Pick<Quorum, 'approvals' | 'required'>): string {
  return `${q.approvals} of ${q.required} approval${q.required === 1 ? '' : 's'}`;
}

/** Who approved so far: "approved by first (approver)", or "no approval yet". */
export function approvedByText(votes: readonly { by: Actor }[]): string {
  return votes.length > 0 ? `approved by ${votes.map((v) => actorName(v.by)).join(', ')}` : 'no approval yet';
}

/**
 * Who may still approve, and how many more: "1 more from role admin or role approver, not the
 * requester, not who approved already". Empty once the quorum is reached.
 */
export function mayStillApproveText(q: Pick<Quorum, 'approvals' | 'required' | 'approvers' | 'requesterMayApprove'>): string {
  const left = q.required - q.approvals;
  if (left <= 0) return '';
  const not = [...(q.requesterMayApprove ? [] : ['not the requester']), ...(q.approvals > 0 ? ['not who approved already'] : [])];
  return [`${left} more from ${approversText(q.approvers)}`, ...not].join(', ');
}
