import type { z } from 'zod';
import { globError } from './glob';
import { TenantPolicy, type ApprovalSpec, type PolicyRule, type RuleMatch } from './schema';

/** One reason a policy is refused, at the field it is about (`rules.2.match.tool`). */
export interface PolicyIssue {
  /** The field, as keys and indexes from the policy's root. */
  path: (string | number)[];
  /** The same path as one dotted string, for messages and the API (`rules.2.match.args.0.pattern`). */
  at: string;
  message: string;
}

export type ParsedPolicy = { ok: true; policy: TenantPolicy } | { ok: false; issues: PolicyIssue[] };

/**
 * Validates an untrusted policy (an admin's PUT, a file for `hub policy set`): its shape (zod),
 * then what the shape cannot say: every glob and regular expression compiles, `approval` comes
 * only with `ask`, rule ids are unique, and no rule follows a catch-all (it could never match).
 */
export function parsePolicy(input: unknown): ParsedPolicy {
  const shaped = TenantPolicy.safeParse(input);
  if (!shaped.success) return { ok: false, issues: shaped.error.issues.map(fromZod) };
  const policy = shaped.data;
  const issues: PolicyIssue[] = [];
  const ids = new Map<string, number>();
  policy.rules.forEach((rule, i) => {
    const at = ['rules', i];
    checkMatch(rule.match, [...at, 'match'], issues);
    checkApproval(rule.outcome, rule.approval, at, issues);
    if (rule.id !== undefined) {
      const first = ids.get(rule.id);
      if (first !== undefined) issues.push(issue([...at, 'id'], `duplicate rule id "${rule.id}" (also rules.${first})`));
      else ids.set(rule.id, i);
    }
    if (i > 0 && isCatchAll(policy.rules[i - 1])) {
      issues.push(issue(at, `unreachable: rules.${i - 1} matches every call, so no rule after it is ever used`));
    }
  });
  checkApproval(policy.default.outcome, policy.default.approval, ['default'], issues);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, policy };
}

/** A rule whose match holds for every call: nothing after it can match. */
export function isCatchAll(rule: PolicyRule): boolean {
  const { tool, executor, risk, args } = rule.match;
  const everything = (g: string | string[] | undefined) => g === undefined || (typeof g === 'string' ? [g] : g).some((x) => x === '*' || x === '**');
  return everything(tool) && everything(executor) && risk === undefined && (args === undefined || args.length === 0);
}

function checkMatch(match: RuleMatch, at: (string | number)[], issues: PolicyIssue[]): void {
  checkGlobs(match.tool, [...at, 'tool'], issues);
  checkGlobs(match.executor, [...at, 'executor'], issues);
  match.args?.forEach((m, j) => {
    const here = [...at, 'args', j];
    if ('glob' in m) checkGlobs(m.glob, [...here, 'glob'], issues);
    if (m.kind === 'regex') {
      try {
        new RegExp(m.pattern, m.flags);
      } catch (e) {
        issues.push(issue([...here, 'pattern'], `not a regular expression: ${e instanceof Error ? e.message : String(e)}`));
      }
    }
    if (m.kind === 'number' && m.min !== undefined && m.max !== undefined && m.min > m.max) {
      issues.push(issue([...here, 'min'], `min ${m.min} is above max ${m.max}`));
    }
  });
}

function checkGlobs(globs: string | string[] | undefined, at: (string | number)[], issues: PolicyIssue[]): void {
  if (globs === undefined) return;
  const list = typeof globs === 'string' ? [globs] : globs;
  list.forEach((g, k) => {
    const error = globError(g);
    if (error) issues.push(issue(typeof globs === 'string' ? at : [...at, k], `not a glob: ${error}`));
  });
}

function checkApproval(outcome: string, approval: ApprovalSpec | undefined, at: (string | number)[], issues: PolicyIssue[]): void {
  if (approval && outcome !== 'ask' && outcome !== 'builtin') {
    issues.push(issue([...at, 'approval'], `approval is only for outcome "ask" (this is "${outcome}")`));
  }
}

/**
 * The approval terms of a valid policy that this hub does not enforce yet: none today. Quorum,
 * approvers by role, key or identity group (a person's groups as their identity provider gave
 * them at sign-in), excluding the requester and deadlines that deny, allow or escalate are all
 * enforced (ADR 0048). A term the language gains before the hub enforces it belongs here: the hub
 * refuses a policy with an unenforced term rather than record it and ignore it, since a policy
 * that says "finance approves" must never let someone else through.
 */
export function unenforcedTerms(_policy: TenantPolicy): PolicyIssue[] {
  return [];
}

function issue(path: (string | number)[], message: string): PolicyIssue {
  return { path, at: path.join('.'), message };
}

function fromZod(i: z.core.$ZodIssue): PolicyIssue {
  return issue(
    i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    i.message,
  );
}
