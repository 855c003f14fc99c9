import { z } from 'zod';
import { RiskTier } from '@hub/domain';

// A tenant's approval policy as data (issue 23, ADR 0039): an ordered list of rules, the first
// whose match holds decides, and a default after them. This file is the shape only; what zod
// cannot say (a glob that does not compile, a rule after a catch-all) is checked in validate.ts.

/**
 * The roles a key can have (libs/auth `ROLES`, repeated here because this lib is pure and auth is
 * not; apps/ingress/src/admin/policy.roles.ts fails to compile if the two lists part).
 */
export const POLICY_ROLES = ['admin', 'operator', 'approver', 'viewer', 'client'] as const;
export type PolicyRole = (typeof POLICY_ROLES)[number];

const MAX_PATTERN = 500;
const Pattern = z.string().min(1, 'is empty').max(MAX_PATTERN, `is longer than ${MAX_PATTERN} characters`);

/** One glob or a list of them (any may match). */
const Globs = z.union([Pattern, z.array(Pattern).min(1).max(50)]);

/** The call's named argument (a top-level key of its input object). */
const ArgName = z.string().min(1).max(100);

/**
 * The named string argument is a path that lies inside the workspace and matches the glob
 * (after normalising `./`, `a/../b`; globs are picomatch's, `**` spans directories).
 */
export const PathGlobMatcher = z.strictObject({ kind: z.literal('path'), arg: ArgName, glob: Globs });
/** The named string argument is a path outside the workspace: absolute, a drive letter, or `..` past its root. */
export const PathOutsideMatcher = z.strictObject({ kind: z.literal('path'), arg: ArgName, outsideWorkspace: z.literal(true) });
/** The named string argument matches the regular expression (JavaScript syntax, searched anywhere in it). */
export const RegexMatcher = z.strictObject({
  kind: z.literal('regex'),
  arg: ArgName,
  pattern: Pattern,
  /** Only `i`, `m`, `s` and `u`: `g` and `y` would make a test depend on the one before. */
  flags: z
    .string()
    .regex(/^[imsu]*$/, 'only the flags i, m, s and u')
    .optional(),
});
/** The named argument is a number within the bounds (inclusive; at least one bound). */
export const NumberMatcher = z
  .strictObject({ kind: z.literal('number'), arg: ArgName, min: z.number().finite().optional(), max: z.number().finite().optional() })
  .refine((m) => m.min !== undefined || m.max !== undefined, { message: 'needs min or max', path: ['min'] });

export const ArgMatcher = z.union([PathGlobMatcher, PathOutsideMatcher, RegexMatcher, NumberMatcher]);
export type ArgMatcher = z.infer<typeof ArgMatcher>;

/** What a rule matches. Every field given must hold; an empty match is a catch-all. */
export const RuleMatch = z.strictObject({
  /** The tool's name (glob): `write_file`, `*_file`, `payments__*`. */
  tool: Globs.optional(),
  /** Where the tool runs (glob): `builtin`, `mcp:payments`, `mcp:*`, or a wrapped harness's name. */
  executor: Globs.optional(),
  /** The tool's risk tier, one of these. */
  risk: z.array(RiskTier).min(1).optional(),
  /** Argument patterns; all of them must hold. */
  args: z.array(ArgMatcher).max(20).optional(),
});
export type RuleMatch = z.infer<typeof RuleMatch>;

/** Who may answer an approval: any of these roles, key prefixes or identity groups. */
export const Approvers = z
  .strictObject({
    roles: z.array(z.enum(POLICY_ROLES, { message: `unknown role (known: ${POLICY_ROLES.join(', ')})` })).optional(),
    /** API keys by their visible prefix (`hub_ab12cd34`). */
    keys: z.array(z.string().min(1).max(100)).optional(),
    /** Identity-provider groups: a person signed in with OIDC whose groups include one (keys have no groups). */
    groups: z.array(z.string().min(1).max(200)).optional(),
  })
  .refine((a) => (a.roles?.length ?? 0) + (a.keys?.length ?? 0) + (a.groups?.length ?? 0) > 0, { message: 'names no approver' });
export type Approvers = z.infer<typeof Approvers>;

/** An approval that outlives its deadline: denied, allowed, or escalated to other approvers. */
export const OnExpiry = z.union([
  z.literal('deny'),
  z.literal('allow'),
  z.strictObject({
    escalate: z.strictObject({
      approvers: Approvers,
      required: z.number().int().min(1).max(10).default(1),
      /** The escalation's own deadline, in seconds after it is asked; passing it denies. Absent: none. */
      afterSeconds: z
        .number()
        .int()
        .min(1)
        .max(30 * 24 * 3600)
        .optional(),
    }),
  }),
]);
export type OnExpiry = z.infer<typeof OnExpiry>;

export const Deadline = z.strictObject({
  /** Seconds after the request. */
  afterSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600),
  onExpiry: OnExpiry.default('deny'),
});
export type Deadline = z.infer<typeof Deadline>;

/** How an `ask` is answered: how many distinct approvals, from whom, until when. */
export const ApprovalSpec = z.strictObject({
  required: z.number().int().min(1).max(10).default(1),
  /** Absent: every key that may answer approvals at all (admin, operator, approver). */
  approvers: Approvers.optional(),
  /** Whether the key that started the turn may approve its own call. */
  requesterMayApprove: z.boolean().default(true),
  deadline: Deadline.optional(),
});
export type ApprovalSpec = z.infer<typeof ApprovalSpec>;

export const Outcome = z.enum(['allow', 'ask', 'deny']);
export type Outcome = z.infer<typeof Outcome>;

export const PolicyRule = z.strictObject({
  /** A stable name shown as the matched rule (`rules[3]` when absent). */
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, `_`, `.`, `-`; at most 64')
    .optional(),
  /** Why the rule exists: shown to approvers and on refused calls. */
  description: z.string().max(500).optional(),
  match: RuleMatch.default({}),
  outcome: Outcome,
  /** Only with `ask`. */
  approval: ApprovalSpec.optional(),
});
export type PolicyRule = z.infer<typeof PolicyRule>;

/** After every rule: `builtin` keeps each tool's own default (write_file and delete_file ask, the rest run). */
export const PolicyDefault = z.strictObject({
  outcome: z.enum(['allow', 'ask', 'deny', 'builtin']),
  approval: ApprovalSpec.optional(),
});
export type PolicyDefault = z.infer<typeof PolicyDefault>;

export const TenantPolicy = z.strictObject({
  rules: z.array(PolicyRule).max(500).default([]),
  default: PolicyDefault.default({ outcome: 'builtin' }),
  /**
   * Whether a session's override may loosen what the policy decided (`deny` → `ask` → `allow`).
   * Off by default: an override can only tighten.
   */
  sessionOverrides: z.enum(['tighten-only', 'any']).default('tighten-only'),
});
/** A validated policy; use `parsePolicy` (validate.ts) to get one from untrusted input. */
export type TenantPolicy = z.infer<typeof TenantPolicy>;
export type TenantPolicyInput = z.input<typeof TenantPolicy>;

/** The policy a tenant has before its admin sets one: every tool keeps its own default. */
export const BUILTIN_POLICY: TenantPolicy = { rules: [], default: { outcome: 'builtin' }, sessionOverrides: 'tighten-only' };
