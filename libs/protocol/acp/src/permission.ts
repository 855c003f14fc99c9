import { z } from 'zod';
import type { ApprovalRequested, RiskTier } from '@hub/domain';
import { toolKind } from './encode';

// Approvals as ACP `session/request_permission`: the canonical ACP `options` + `toolCall`, plus
// Harn's `approvalRequest` / `policyDecision`. Answers come back in ACP form
// (`{outcome: {outcome: 'selected', optionId}}` / `cancelled`) or Harn's legacy `granted` forms.

export const PERMISSION_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
] as const;

const ALLOW_IDS = new Set(['allow-once', 'allow_once', 'allow-always', 'allow_always', 'allow', 'approve', 'approved']);

/** Argument keys that name workspace paths (the hub's file tools use `path`). */
const PATH_KEYS = new Set(['path', 'paths', 'file', 'files', 'file_path', 'filePath', 'target', 'destination']);

/** The workspace paths a call's arguments declare (Harn `declaredPaths`), in argument order. */
export function declaredPaths(args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (!PATH_KEYS.has(k)) continue;
    for (const p of Array.isArray(v) ? v : [v]) if (typeof p === 'string' && p.length > 0 && !out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * The rule that made this call need approval (Harn `matched_rule`). A hub tool asks because a rule
 * of the tenant's approval policy says so (issue 23: its id, its index, null for the policy's
 * default, and the policy version); a wrapped harness asks on its own (rule id: the harness,
 * `harness:<kind>:<name>`). Under the built-in policy (version 0, or an approval recorded before
 * policies existed) the tool's own policy asked (rule id: the tool name, index 0).
 */
function matchedRule(a: ApprovalRequested['data'], executor: string | undefined) {
  if (executor?.startsWith('harness')) return { source: 'harness', action: 'ask', id: executor, index: 0 };
  if (a.policy && a.policy.version > 0)
    return { source: 'tenant_policy', action: 'ask', id: a.policy.rule, index: a.policy.ruleIndex, policy_version: a.policy.version };
  return { source: 'tool_policy', action: 'ask', id: a.toolName, index: 0 };
}

/**
 * Params of `session/request_permission` for one ApprovalRequested. `executor`: where the call
 * runs, as the log's ToolCallStarted says (it names the rule that asked).
 */
export function permissionRequest(sessionId: string, a: ApprovalRequested['data'], requestedAt: string, executor?: string) {
  const paths = declaredPaths(a.input);
  const writes = ['edit', 'delete', 'move'].includes(toolKind(a.toolName));
  const mutationScope = writes ? 'apply_workspace' : 'read_only';
  const policyDecision = {
    type: 'harn.permission_policy_decision.v1',
    action: 'ask',
    reason: a.reason,
    matched_rule: matchedRule(a, executor),
    risk_labels: ['approval_required', `risk_${a.riskTier satisfies RiskTier}`, ...(paths.length > 0 ? ['path_rule'] : [])],
    context: { tool_name: a.toolName, tool_kind: toolKind(a.toolName), paths: paths.map((p) => ({ workspace_path: p })) },
  };
  // Harn's MutationSessionRecord: the hub's run is the turn; no worker tree, so worker_id is null.
  const mutation = {
    session_id: sessionId,
    run_id: a.turnId,
    worker_id: null,
    mutation_scope: mutationScope,
    approval_policy: { require_approval: [a.toolName] },
  };
  const approvalRequest: Record<string, unknown> = {
    id: a.approvalId,
    action: a.toolName,
    args: a.input,
    principal: 'agent',
    requested_at: requestedAt,
    // Distinct approvals the call needs (ADR 0048); the hub counts them, this client's is one.
    approvers_required: a.quorum?.required ?? 1,
    evidence_refs: paths.map((p) => ({ kind: 'workspace_path', ref: p, metadata: { workspace_path: p } })),
    undo_metadata: { session_id: sessionId, run_id: a.turnId, worker_id: null, mutation_scope: mutationScope, policy_decision: policyDecision },
    capabilities_requested: [],
  };
  if (a.deadlineAt) approvalRequest['deadline'] = a.deadlineAt;
  return {
    sessionId,
    toolCall: {
      toolCallId: a.toolCallId,
      title: a.toolName,
      status: 'pending',
      rawInput: a.input,
      _meta: { harn: { toolName: a.toolName, riskTier: a.riskTier } },
    },
    options: PERMISSION_OPTIONS.map((o) => ({ ...o })),
    approvalRequest,
    policyDecision,
    mutation,
    declaredPaths: paths,
    // Copies under `_meta.harn` too: ACP clients that parse strictly keep only `_meta`.
    _meta: { harn: { approvalId: a.approvalId, turnId: a.turnId, approvalRequest, policyDecision, mutation, declaredPaths: paths } },
  };
}

/**
 * The same request offering only a refusal: for a key that may not approve this call under its
 * quorum terms (the excluded requester, or one that approved already; ADR 0048) but may refuse it.
 */
export function withoutApprove<T>(params: T): T {
  const p = params as { options?: readonly { kind: string }[] };
  return { ...params, options: (p.options ?? []).filter((o) => o.kind.startsWith('reject')) };
}

const AcpAnswer = z.looseObject({
  outcome: z.union([z.looseObject({ outcome: z.literal('selected'), optionId: z.string().optional() }), z.looseObject({ outcome: z.literal('cancelled') })]),
});
const LegacyAnswer = z.looseObject({ granted: z.boolean(), reason: z.string().optional(), args: z.unknown().optional() });

/** What a permission answer decides; `input`: the approver's edit of the call's arguments (Harn `granted` + `args`). */
export interface PermissionAnswer {
  decision: 'approved' | 'denied';
  reason: string | null;
  input?: Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A permission answer as a decision, or `null` when the answer is not one we understand (fail closed). */
export function decodePermissionAnswer(result: unknown): PermissionAnswer | null {
  const acp = AcpAnswer.safeParse(result);
  if (acp.success) {
    const o = acp.data.outcome;
    if (o.outcome === 'cancelled') return { decision: 'denied', reason: 'cancelled by the client' };
    // Harn: a bare `selected` without optionId is a grant.
    const allowed = o.optionId === undefined || ALLOW_IDS.has(o.optionId);
    return { decision: allowed ? 'approved' : 'denied', reason: allowed ? null : `option ${o.optionId}` };
  }
  const legacy = LegacyAnswer.safeParse(result);
  if (!legacy.success) return null;
  const { granted, reason, args } = legacy.data;
  if (!granted || args === undefined) return { decision: granted ? 'approved' : 'denied', reason: reason ?? null };
  // Rewritten args replace the call's arguments, which are always an object: anything else is
  // refused outright rather than run with the original arguments.
  if (!isPlainObject(args)) return { decision: 'denied', reason: 'refused: rewritten args must be a JSON object' };
  return { decision: 'approved', reason: reason ?? null, input: args };
}
