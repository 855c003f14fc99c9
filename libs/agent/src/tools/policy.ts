import type { RiskTier, ToolPolicyDecision } from '@hub/domain';
import type { Tool } from './types';

/** The outcome of {@link decidePolicy}: what to do with one call, and why (shown to approvers). */
export interface PolicyDecision {
  decision: ToolPolicyDecision;
  riskTier: RiskTier;
  reason: string;
}

/**
 * Decides whether one tool call runs (`allow`), waits for a human (`ask`) or is refused
 * (`deny`). A per-session override for the tool's name wins over the tool's default policy.
 * `input` is accepted so input-sensitive rules can be added without changing callers.
 */
export function decidePolicy(
  tool: Tool,
  _input: unknown,
  overrides: Record<string, ToolPolicyDecision> = {},
): PolicyDecision {
  const override = Object.prototype.hasOwnProperty.call(overrides, tool.name) ? overrides[tool.name] : undefined;
  const decision = override ?? tool.policy;
  const source = override === undefined ? 'default policy' : 'session override';
  return { decision, riskTier: tool.riskTier, reason: `${tool.name} (${tool.riskTier} risk): ${describe(decision)} by ${source}` };
}

function describe(decision: ToolPolicyDecision): string {
  switch (decision) {
    case 'allow':
      return 'allowed';
    case 'ask':
      return 'needs approval';
    case 'deny':
      return 'denied';
  }
}
