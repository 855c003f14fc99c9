export * from './schema';
export { parsePolicy, isCatchAll, unenforcedTerms, type ParsedPolicy, type PolicyIssue } from './validate';
export {
  evaluate,
  explain,
  ruleId,
  type Explanation,
  type MatchedRule,
  type PolicyCall,
  type PolicyVerdict,
  type ResolvedApproval,
  type RuleTrace,
} from './explain';
export { applySessionOverride } from './overrides';
export { tally, whyNotEligible, describeApprovers, type QuorumTerms, type Tally, type Vote, type Voter } from './quorum';
export { workspacePath } from './workspace-path';
export { globError } from './glob';
export { TenantPolicies, InvalidPolicyError, jsonPath, POLICY_EVENT, type CurrentPolicy, type PolicyLog } from './tenant-policies';
