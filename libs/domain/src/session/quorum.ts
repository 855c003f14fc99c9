import { z } from 'zod';

/** Who may answer an approval under a quorum: any of these roles, key prefixes or identity groups (validated by @hub/policy). */
export const QuorumApprovers = z.object({
  roles: z.array(z.string()).optional(),
  keys: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
});
export type QuorumApprovers = z.infer<typeof QuorumApprovers>;
type Approvers = QuorumApprovers;

// Quorum (issue 23, ADR 0048): an approval that needs `required` distinct approvals from the
// named approvers. Every answer is its own event; this is the pure arithmetic over them, so the
// decider, the inbox and explain count the same way. It lives here, not in @hub/policy (which
// re-exports it), because the session decider applies it and @hub/policy depends on this lib.

/** The terms an approval was asked under, as recorded on its `ApprovalRequested` (`quorum`). */
export const QuorumTerms = z.object({
  required: z.number().int().min(1),
  /** Absent: any key that may answer approvals at all. */
  approvers: QuorumApprovers.optional(),
  requesterMayApprove: z.boolean(),
  /** Who started the turn (an actor identity, see `actorIdentity`), or null when unknown. */
  requester: z.string().nullable(),
});
export type QuorumTerms = z.infer<typeof QuorumTerms>;

/** Who answers: a stable identity (`api_key:<prefix>`, `person:<iss>#<sub>`), its key prefix, role and groups. */
export interface Voter {
  identity: string;
  keyPrefix?: string;
  role?: string;
  groups?: readonly string[];
}

export interface Vote {
  identity: string;
  decision: 'approved' | 'denied';
}

export interface Tally {
  status: 'pending' | 'approved' | 'denied';
  /** Distinct identities that approved, in order. */
  approvedBy: string[];
  deniedBy: string | null;
  /** Approvals still needed (0 once approved). */
  remaining: number;
}

/** Why `voter` may not answer this approval, or null when they may. */
export function whyNotEligible(terms: QuorumTerms, voter: Voter): string | null {
  if (!terms.requesterMayApprove && terms.requester !== null && voter.identity === terms.requester) {
    return 'the requester may not approve their own call under this rule';
  }
  const a = terms.approvers;
  if (!a) return null;
  const byRole = voter.role !== undefined && (a.roles ?? []).some((r) => r === voter.role);
  const byKey = voter.keyPrefix !== undefined && (a.keys ?? []).includes(voter.keyPrefix);
  const byGroup = (voter.groups ?? []).some((g) => (a.groups ?? []).includes(g));
  if (byRole || byKey || byGroup) return null;
  return `only ${describeApprovers(a)} may answer this approval`;
}

/** The state of an approval after these votes, in order: one denial ends it; an identity counts once. */
export function tally(terms: QuorumTerms, votes: readonly Vote[]): Tally {
  const approvedBy: string[] = [];
  for (const v of votes) {
    if (v.decision === 'denied') return { status: 'denied', approvedBy, deniedBy: v.identity, remaining: terms.required - approvedBy.length };
    if (!approvedBy.includes(v.identity)) approvedBy.push(v.identity);
    if (approvedBy.length >= terms.required) return { status: 'approved', approvedBy, deniedBy: null, remaining: 0 };
  }
  return { status: 'pending', approvedBy, deniedBy: null, remaining: terms.required - approvedBy.length };
}

export function describeApprovers(a: Approvers): string {
  const parts = [...(a.roles ?? []).map((r) => `role ${r}`), ...(a.keys ?? []).map((k) => `key ${k}`), ...(a.groups ?? []).map((g) => `group ${g}`)];
  return parts.join(', ');
}
