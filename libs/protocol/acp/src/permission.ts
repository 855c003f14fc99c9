import { z } from 'zod';
import type { ApprovalRequested, RiskTier } from '@hub/domain';

// Approvals as ACP `session/request_permission`: the canonical ACP `options` + `toolCall`, plus
// Harn's `approvalRequest` / `policyDecision`. Answers come back in ACP form
// (`{outcome: {outcome: 'selected', optionId}}` / `cancelled`) or Harn's legacy `granted` forms.

export const PERMISSION_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
] as const;

const ALLOW_IDS = new Set(['allow-once', 'allow_once', 'allow-always', 'allow_always', 'allow', 'approve', 'approved']);

/** Params of `session/request_permission` for one ApprovalRequested. */
export function permissionRequest(sessionId: string, a: ApprovalRequested['data'], requestedAt: string) {
  const policyDecision = {
    type: 'harn.permission_policy_decision.v1',
    action: 'ask',
    reason: a.reason,
    risk_labels: ['approval_required', `risk_${a.riskTier satisfies RiskTier}`],
    context: { tool_name: a.toolName },
  };
  const approvalRequest: Record<string, unknown> = {
    id: a.approvalId,
    action: a.toolName,
    args: a.input,
    principal: 'agent',
    requested_at: requestedAt,
    approvers_required: 1,
    evidence_refs: [],
    undo_metadata: { session_id: sessionId, run_id: a.turnId, worker_id: null, policy_decision: policyDecision },
    capabilities_requested: [],
  };
  if (a.deadlineAt) approvalRequest['deadline'] = a.deadlineAt;
  return {
    sessionId,
    toolCall: { toolCallId: a.toolCallId, title: a.toolName, status: 'pending', rawInput: a.input, _meta: { harn: { toolName: a.toolName, riskTier: a.riskTier } } },
    options: PERMISSION_OPTIONS.map((o) => ({ ...o })),
    approvalRequest,
    policyDecision,
    // Copies under `_meta.harn` too: ACP clients that parse strictly keep only `_meta`.
    _meta: { harn: { approvalId: a.approvalId, turnId: a.turnId, approvalRequest, policyDecision } },
  };
}

const AcpAnswer = z.looseObject({
  outcome: z.union([
    z.looseObject({ outcome: z.literal('selected'), optionId: z.string().optional() }),
    z.looseObject({ outcome: z.literal('cancelled') }),
  ]),
});
const LegacyAnswer = z.looseObject({ granted: z.boolean(), reason: z.string().optional(), args: z.unknown().optional() });

/** A permission answer as a decision, or `null` when the answer is not one we understand (fail closed). */
export function decodePermissionAnswer(result: unknown): { decision: 'approved' | 'denied'; reason: string | null } | null {
  const acp = AcpAnswer.safeParse(result);
  if (acp.success) {
    const o = acp.data.outcome;
    if (o.outcome === 'cancelled') return { decision: 'denied', reason: 'cancelled by the client' };
    // Harn: a bare `selected` without optionId is a grant.
    const allowed = o.optionId === undefined || ALLOW_IDS.has(o.optionId);
    return { decision: allowed ? 'approved' : 'denied', reason: allowed ? null : `option ${o.optionId}` };
  }
  const legacy = LegacyAnswer.safeParse(result);
  if (legacy.success) return { decision: legacy.data.granted ? 'approved' : 'denied', reason: legacy.data.reason ?? null };
  return null;
}
