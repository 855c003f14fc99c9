import type { RiskTier } from '@hub/domain';
import { matchesGlob } from './glob';
import { workspacePath } from './workspace-path';
import type { ApprovalSpec, ArgMatcher, Outcome, PolicyRule, TenantPolicy } from './schema';

/** What the policy is asked about: one tool call as the worker is about to run it. */
export interface PolicyCall {
  tool: string;
  /** `builtin`, `mcp:<server>`, or a wrapped harness's executor. */
  executor: string;
  riskTier: RiskTier;
  /** The tool's own default, used when the policy's default is `builtin`. */
  builtin: Outcome;
  input: unknown;
}

/** The rule that decided: its index (null for the default) and the name shown everywhere. */
export interface MatchedRule {
  index: number | null;
  /** The rule's `id`, else `rules[<index>]`; `default` for the default. */
  id: string;
}

/** An `ask`'s terms, with the policy's defaults filled in. */
export type ResolvedApproval = Required<Pick<ApprovalSpec, 'required' | 'requesterMayApprove'>> & Pick<ApprovalSpec, 'approvers' | 'deadline'>;

export interface PolicyVerdict {
  outcome: Outcome;
  rule: MatchedRule;
  /** For `ask`: who may approve and how many; null otherwise. */
  approval: ResolvedApproval | null;
  /** One line for approvers and refused calls: the rule, its description, and why it matched. */
  reason: string;
}

/** One rule looked at on the way to the verdict, with why it did or did not match. */
export interface RuleTrace {
  index: number;
  id: string;
  matched: boolean;
  why: string;
}

export interface Explanation {
  verdict: PolicyVerdict;
  /** Every rule up to and including the one that matched (all of them when the default decided). */
  trace: RuleTrace[];
}

const ASK_ONCE: ResolvedApproval = { required: 1, requesterMayApprove: true };

/** The verdict of `policy` on `call`: the first rule whose match holds, else the default. */
export function evaluate(policy: TenantPolicy, call: PolicyCall): PolicyVerdict {
  return explain(policy, call).verdict;
}

/** {@link evaluate}, with each rule it looked at and why it matched or not. Pure: the policy must be one `parsePolicy` accepted. */
export function explain(policy: TenantPolicy, call: PolicyCall): Explanation {
  const trace: RuleTrace[] = [];
  for (const [index, rule] of policy.rules.entries()) {
    const id = ruleId(rule, index);
    const miss = mismatch(rule, call);
    trace.push({ index, id, matched: miss === null, why: miss ?? matchedBecause(rule) });
    if (miss === null) {
      const because = matchedBecause(rule);
      const verdict: PolicyVerdict = {
        outcome: rule.outcome,
        rule: { index, id },
        approval: rule.outcome === 'ask' ? resolve(rule.approval) : null,
        reason: `${call.tool}: ${describe(rule.outcome)} by rule ${id}${rule.description ? ` (${rule.description})` : ''}: ${because}`,
      };
      return { verdict, trace };
    }
  }
  const builtin = policy.default.outcome === 'builtin';
  const outcome = builtin ? call.builtin : (policy.default.outcome as Outcome);
  const why = builtin ? `no rule matched; ${call.tool}'s own default (${call.riskTier} risk)` : 'no rule matched';
  const verdict: PolicyVerdict = {
    outcome,
    rule: { index: null, id: 'default' },
    approval: outcome === 'ask' ? resolve(policy.default.approval) : null,
    reason: `${call.tool}: ${describe(outcome)} by the default: ${why}`,
  };
  return { verdict, trace };
}

/** The name a rule is shown by. */
export function ruleId(rule: PolicyRule, index: number): string {
  return rule.id ?? `rules[${index}]`;
}

function resolve(spec: ApprovalSpec | undefined): ResolvedApproval {
  return spec ? { ...ASK_ONCE, ...spec } : ASK_ONCE;
}

/** Why the rule does not match the call, or null when it does. */
function mismatch(rule: PolicyRule, call: PolicyCall): string | null {
  const { tool, executor, risk, args } = rule.match;
  if (tool !== undefined && !matchesGlob(call.tool, tool)) return `tool ${call.tool} is not ${show(tool)}`;
  if (executor !== undefined && !matchesGlob(call.executor, executor)) return `executor ${call.executor} is not ${show(executor)}`;
  if (risk !== undefined && !risk.includes(call.riskTier)) return `risk ${call.riskTier} is not ${risk.join(' or ')}`;
  for (const m of args ?? []) {
    const miss = argMismatch(m, call.input);
    if (miss) return miss;
  }
  return null;
}

function argMismatch(m: ArgMatcher, input: unknown): string | null {
  const value =
    input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, m.arg) ? (input as Record<string, unknown>)[m.arg] : undefined;
  switch (m.kind) {
    case 'path': {
      if (typeof value !== 'string') return `argument ${m.arg} is not a string`;
      const inside = workspacePath(value);
      if ('outsideWorkspace' in m) return inside === null ? null : `${m.arg} "${value}" is inside the workspace`;
      if (inside === null) return `${m.arg} "${value}" is outside the workspace`;
      return matchesGlob(inside, m.glob) ? null : `${m.arg} "${inside}" is not ${show(m.glob)}`;
    }
    case 'regex':
      if (typeof value !== 'string') return `argument ${m.arg} is not a string`;
      return new RegExp(m.pattern, m.flags).test(value) ? null : `${m.arg} does not match /${m.pattern}/${m.flags ?? ''}`;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `argument ${m.arg} is not a number`;
      if (m.min !== undefined && value < m.min) return `${m.arg} ${value} is below ${m.min}`;
      if (m.max !== undefined && value > m.max) return `${m.arg} ${value} is above ${m.max}`;
      return null;
  }
}

/** What made a matching rule match, in words. */
function matchedBecause(rule: PolicyRule): string {
  const { tool, executor, risk, args } = rule.match;
  const parts: string[] = [];
  if (tool !== undefined) parts.push(`tool is ${show(tool)}`);
  if (executor !== undefined) parts.push(`executor is ${show(executor)}`);
  if (risk !== undefined) parts.push(`risk is ${risk.join(' or ')}`);
  for (const m of args ?? []) {
    if (m.kind === 'path') parts.push('outsideWorkspace' in m ? `${m.arg} is outside the workspace` : `${m.arg} is ${show(m.glob)}`);
    else if (m.kind === 'regex') parts.push(`${m.arg} matches /${m.pattern}/${m.flags ?? ''}`);
    else parts.push(`${m.arg} is within [${m.min ?? '-∞'}, ${m.max ?? '∞'}]`);
  }
  return parts.length > 0 ? parts.join(', ') : 'matches every call';
}

function show(globs: string | readonly string[]): string {
  return typeof globs === 'string' ? `"${globs}"` : globs.map((g) => `"${g}"`).join(' or ');
}

function describe(outcome: Outcome): string {
  switch (outcome) {
    case 'allow':
      return 'allowed';
    case 'ask':
      return 'needs approval';
    case 'deny':
      return 'denied';
  }
}
