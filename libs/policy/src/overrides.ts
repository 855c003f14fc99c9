import type { Outcome, TenantPolicy } from './schema';
import type { PolicyVerdict } from './explain';

const STRICTNESS: Record<Outcome, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * A session's override for the call's tool (`{ delete_file: 'deny' }`) applied to the policy's
 * verdict: taken when it is at least as strict (allow < ask < deny); a looser one only when the
 * policy says `sessionOverrides: 'any'`, and otherwise ignored (the reason says so).
 */
export function applySessionOverride(policy: TenantPolicy, verdict: PolicyVerdict, override: Outcome | undefined): PolicyVerdict {
  if (override === undefined || override === verdict.outcome) return verdict;
  const loosens = STRICTNESS[override] < STRICTNESS[verdict.outcome];
  if (loosens && policy.sessionOverrides !== 'any') {
    return { ...verdict, reason: `${verdict.reason}; the session's override "${override}" is ignored: it would loosen the policy` };
  }
  return {
    outcome: override,
    rule: { index: null, id: 'session-override' },
    approval: override === 'ask' ? { required: 1, requesterMayApprove: true } : null,
    reason: `${verdict.reason}; then ${override} by the session's override`,
  };
}
