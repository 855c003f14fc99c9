import type { ApprovalPolicyRef, RiskTier, ToolPolicyDecision } from '@hub/domain';
import { BUILTIN_POLICY, applySessionOverride, evaluate, type ResolvedApproval, type TenantPolicy } from '@hub/policy';
import type { Tool } from './types';

/** The tenant's policy in force, as the worker loaded it for one job (version 0: the built-in one). */
export interface LoadedPolicy {
  version: number;
  policy: TenantPolicy;
}

export const BUILTIN: LoadedPolicy = { version: 0, policy: BUILTIN_POLICY };

/** The outcome of {@link decidePolicy}: what to do with one call, and why (shown to approvers). */
export interface PolicyDecision {
  decision: ToolPolicyDecision;
  riskTier: RiskTier;
  /** One line naming the rule that decided and why it matched. */
  reason: string;
  /** The policy version and rule, recorded on the call's events. */
  rule: ApprovalPolicyRef;
  /** For `ask`: how many approvals, from whom, until when. */
  approval: ResolvedApproval | null;
}

/**
 * Decides whether one tool call runs (`allow`), waits for a human (`ask`) or is refused (`deny`)
 * under the tenant's policy (@hub/policy: first matching rule over the tool's name, executor, risk
 * and arguments; else the default, which by default is the tool's own `policy`). A per-session
 * override for the tool's name is applied after it, and may only tighten unless the policy lets
 * sessions loosen it. The same function decides a call as the model made it and an approver's
 * edit of it (edited-input.ts), so an edit cannot slip past a rule.
 */
export function decidePolicy(tool: Tool, input: unknown, loaded: LoadedPolicy = BUILTIN, overrides: Record<string, ToolPolicyDecision> = {}): PolicyDecision {
  const call = { tool: tool.name, executor: tool.executor, riskTier: tool.riskTier, builtin: tool.policy, input };
  const override = Object.prototype.hasOwnProperty.call(overrides, tool.name) ? overrides[tool.name] : undefined;
  const verdict = applySessionOverride(loaded.policy, evaluate(loaded.policy, call), override);
  return {
    decision: verdict.outcome,
    riskTier: tool.riskTier,
    reason: `${verdict.reason} [policy v${loaded.version}]`,
    rule: { version: loaded.version, rule: verdict.rule.id, ruleIndex: verdict.rule.index },
    approval: verdict.approval,
  };
}
