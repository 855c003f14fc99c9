import {
  applySessionOverride,
  evaluate,
  explain,
  parsePolicy,
  tally,
  unenforcedTerms,
  whyNotEligible,
  workspacePath,
  type PolicyCall,
  type TenantPolicy,
} from './index';

/** The issue's example policy: the table below walks it. */
const EXAMPLE = {
  rules: [
    { id: 'tmp-writes', match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'tmp/**' }] }, outcome: 'allow' },
    {
      id: 'no-outside-deletes',
      match: { tool: 'delete_file', args: [{ kind: 'path', arg: 'path', outsideWorkspace: true }] },
      outcome: 'deny',
      description: 'nothing outside the workspace',
    },
    { id: 'no-rm-rf', match: { tool: 'shell', args: [{ kind: 'regex', arg: 'command', pattern: 'rm\\s+-(?=[a-z]*r)(?=[a-z]*f)' }] }, outcome: 'deny' },
    {
      id: 'payments-two',
      match: { executor: 'mcp:payments' },
      outcome: 'ask',
      approval: {
        required: 2,
        approvers: { roles: ['admin'], keys: ['hub_fin00001'] },
        requesterMayApprove: false,
        deadline: { afterSeconds: 600, onExpiry: { escalate: { approvers: { groups: ['finance-leads'] } } } },
      },
    },
    { id: 'big-amounts', match: { args: [{ kind: 'number', arg: 'amount', min: 1000 }] }, outcome: 'ask' },
    { id: 'writes-ask', match: { tool: ['write_file', 'delete_file'] }, outcome: 'ask' },
  ],
  default: { outcome: 'allow' },
};

function policy(input: unknown = EXAMPLE): TenantPolicy {
  const parsed = parsePolicy(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.policy;
}

const call = (tool: string, input: unknown, executor = 'builtin'): PolicyCall => ({ tool, executor, riskTier: 'medium', builtin: 'allow', input });

describe('evaluate: first match wins', () => {
  it.each([
    ['write under tmp/ runs', call('write_file', { path: 'tmp/a/b.txt' }), 'allow', 'tmp-writes'],
    ['./tmp/ is the same directory', call('write_file', { path: './tmp/x' }), 'allow', 'tmp-writes'],
    ['a path that climbs out of tmp/ is not under it', call('write_file', { path: 'tmp/../notes.txt' }), 'ask', 'writes-ask'],
    ['write elsewhere asks', call('write_file', { path: 'notes.txt' }), 'ask', 'writes-ask'],
    ['delete outside the workspace is refused', call('delete_file', { path: '../../etc/passwd' }), 'deny', 'no-outside-deletes'],
    ['an absolute path is outside', call('delete_file', { path: '/etc/passwd' }), 'deny', 'no-outside-deletes'],
    ['delete inside asks', call('delete_file', { path: 'a.txt' }), 'ask', 'writes-ask'],
    ['rm -rf is refused', call('shell', { command: 'cd / && rm -rf *' }), 'deny', 'no-rm-rf'],
    ['rm -fr too (the regex says so)', call('shell', { command: 'rm -fr x' }), 'deny', 'no-rm-rf'],
    ['ls runs', call('shell', { command: 'ls -la' }), 'allow', 'default'],
    ['payments asks two', call('refund', { amount: 5 }, 'mcp:payments'), 'ask', 'payments-two'],
    ['a number bound', call('transfer', { amount: 1000 }, 'mcp:bank'), 'ask', 'big-amounts'],
    ['below the bound', call('transfer', { amount: 999.5 }, 'mcp:bank'), 'allow', 'default'],
    ['a string is not a number', call('transfer', { amount: '5000' }, 'mcp:bank'), 'allow', 'default'],
  ])('%s', (_name, c, outcome, rule) => {
    const verdict = evaluate(policy(), c);
    expect([verdict.outcome, verdict.rule.id]).toEqual([outcome, rule]);
  });

  it('carries the quorum terms of an ask, with defaults filled in', () => {
    expect(evaluate(policy(), call('refund', {}, 'mcp:payments')).approval).toEqual({
      required: 2,
      approvers: { roles: ['admin'], keys: ['hub_fin00001'] },
      requesterMayApprove: false,
      deadline: { afterSeconds: 600, onExpiry: { escalate: { approvers: { groups: ['finance-leads'] }, required: 1 } } },
    });
    expect(evaluate(policy(), call('write_file', { path: 'x' })).approval).toEqual({ required: 1, requesterMayApprove: true });
    expect(evaluate(policy(), call('ls', {})).approval).toBeNull();
  });

  it('explains each rule it passed and the one that matched, in words', () => {
    const { verdict, trace } = explain(policy(), call('delete_file', { path: '/etc/passwd' }));
    expect(trace.map((t) => [t.id, t.matched])).toEqual([
      ['tmp-writes', false],
      ['no-outside-deletes', true],
    ]);
    expect(trace[0].why).toBe('tool delete_file is not "write_file"');
    expect(verdict.reason).toBe(
      'delete_file: denied by rule no-outside-deletes (nothing outside the workspace): tool is "delete_file", path is outside the workspace',
    );
    expect(verdict.rule).toEqual({ index: 1, id: 'no-outside-deletes' });
  });

  it('names a rule without an id by its index, and `builtin` keeps the tool default', () => {
    const p = policy({ rules: [{ match: { risk: ['high'] }, outcome: 'deny' }] });
    expect(evaluate(p, { ...call('x', {}), riskTier: 'high' }).rule).toEqual({ index: 0, id: 'rules[0]' });
    const fallback = evaluate(p, { ...call('write_file', {}), builtin: 'ask' });
    expect([fallback.outcome, fallback.rule.id, fallback.approval]).toEqual(['ask', 'default', { required: 1, requesterMayApprove: true }]);
  });
});

describe('workspacePath', () => {
  it.each([
    ['a/b', 'a/b'],
    ['./a//b/', 'a/b'],
    ['a/../b', 'b'],
    ['a\\b', 'a/b'],
    ['.', ''],
    ['..', null],
    ['a/../../b', null],
    ['/abs', null],
    ['C:/x', null],
    ['~/x', null],
  ])('%s → %s', (value, expected) => expect(workspacePath(value)).toBe(expected));
});

describe('parsePolicy refuses with the path to the bad field', () => {
  const issuesOf = (input: unknown) => {
    const parsed = parsePolicy(input);
    return parsed.ok ? [] : parsed.issues.map((i) => [i.at, i.message]);
  };

  it('a glob that does not compile', () => {
    expect(issuesOf({ rules: [{ match: { tool: 'write_{file' }, outcome: 'allow' }] })).toEqual([
      ['rules.0.match.tool', expect.stringMatching(/^not a glob: Missing closing: "}"/)],
    ]);
    expect(issuesOf({ rules: [{ match: { args: [{ kind: 'path', arg: 'p', glob: ['ok/**', 'bad['] }] }, outcome: 'allow' }] })).toEqual([
      ['rules.0.match.args.0.glob.1', expect.stringMatching(/^not a glob/)],
    ]);
  });

  it('a regular expression that does not compile', () => {
    expect(issuesOf({ rules: [{ match: { args: [{ kind: 'regex', arg: 'command', pattern: 'rm (-rf' }] }, outcome: 'deny' }] })).toEqual([
      ['rules.0.match.args.0.pattern', expect.stringMatching(/^not a regular expression: .*Unterminated group/)],
    ]);
  });

  it('an unknown role', () => {
    expect(issuesOf({ rules: [{ outcome: 'ask', match: { tool: 'x' }, approval: { approvers: { roles: ['approver', 'finance'] } } }] })).toEqual([
      ['rules.0.approval.approvers.roles.1', expect.stringMatching(/^unknown role \(known: admin, operator/)],
    ]);
  });

  it('a rule after a catch-all', () => {
    expect(
      issuesOf({
        rules: [
          { match: { tool: 'a' }, outcome: 'allow' },
          { match: {}, outcome: 'ask' },
          { match: { tool: 'b' }, outcome: 'deny' },
        ],
      }),
    ).toEqual([['rules.2', 'unreachable: rules.1 matches every call, so no rule after it is ever used']]);
    expect(issuesOf({ rules: [{ match: { tool: '**' }, outcome: 'ask' }, { outcome: 'deny' }] })).toHaveLength(1);
  });

  it('approval terms on an outcome that asks no one, a duplicate id, a bound the wrong way round, an unknown key', () => {
    expect(
      issuesOf({
        rules: [
          { id: 'r', match: { tool: 'a' }, outcome: 'deny', approval: { required: 2 } },
          { id: 'r', match: { args: [{ kind: 'number', arg: 'n', min: 5, max: 1 }] }, outcome: 'allow' },
        ],
        default: { outcome: 'allow', aproval: {} },
      }),
    ).toEqual([['default', expect.stringContaining('aproval')]]);
    expect(
      issuesOf({
        rules: [
          { id: 'r', match: { tool: 'a' }, outcome: 'deny', approval: { required: 2 } },
          { id: 'r', match: { args: [{ kind: 'number', arg: 'n', min: 5, max: 1 }] }, outcome: 'allow' },
        ],
      }),
    ).toEqual([
      ['rules.0.approval', 'approval is only for outcome "ask" (this is "deny")'],
      ['rules.1.match.args.0.min', 'min 5 is above max 1'],
      ['rules.1.id', 'duplicate rule id "r" (also rules.0)'],
    ]);
  });

  it('the hub accepts every approval term it has: approvers by identity group, directly and on escalation, included', () => {
    expect(unenforcedTerms(policy())).toEqual([]);
    expect(
      unenforcedTerms(policy({ rules: [{ match: { tool: 'x' }, outcome: 'ask', approval: { required: 2, approvers: { roles: ['admin'], groups: ['g'] } } }] })),
    ).toEqual([]);
    expect(
      unenforcedTerms(
        policy({
          rules: [
            {
              match: { tool: 'x' },
              outcome: 'ask',
              approval: { required: 3, approvers: { keys: ['hub_a'] }, requesterMayApprove: false, deadline: { afterSeconds: 60 } },
            },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it('accepts the empty policy, which keeps every tool default', () => {
    expect(parsePolicy({})).toEqual({ ok: true, policy: { rules: [], default: { outcome: 'builtin' }, sessionOverrides: 'tighten-only' } });
  });
});

describe('session overrides', () => {
  const p = policy();
  it('tighten: an allow becomes ask or deny', () => {
    const v = applySessionOverride(p, evaluate(p, call('ls', {})), 'deny');
    expect([v.outcome, v.rule.id]).toEqual(['deny', 'session-override']);
  });
  it('never loosen, unless the policy lets sessions', () => {
    const denied = evaluate(p, call('shell', { command: 'rm -rf /' }));
    const kept = applySessionOverride(p, denied, 'allow');
    expect([kept.outcome, kept.rule.id]).toEqual(['deny', 'no-rm-rf']);
    expect(kept.reason).toMatch(/override "allow" is ignored: it would loosen the policy$/);
    const lax = { ...p, sessionOverrides: 'any' as const };
    expect(applySessionOverride(lax, denied, 'allow').outcome).toBe('allow');
  });
});

describe('quorum', () => {
  const terms = {
    required: 2,
    approvers: { roles: ['admin' as const], keys: ['hub_fin00001'] },
    requesterMayApprove: false,
    requester: 'api_key:hub_req00001',
  };

  it('stays pending after one approval; a second identity approves it; the same one twice counts once', () => {
    expect(tally(terms, [{ identity: 'api_key:a', decision: 'approved' }])).toEqual({
      status: 'pending',
      approvedBy: ['api_key:a'],
      deniedBy: null,
      remaining: 1,
    });
    expect(
      tally(terms, [
        { identity: 'api_key:a', decision: 'approved' },
        { identity: 'api_key:a', decision: 'approved' },
      ]).status,
    ).toBe('pending');
    expect(
      tally(terms, [
        { identity: 'api_key:a', decision: 'approved' },
        { identity: 'api_key:b', decision: 'approved' },
      ]).status,
    ).toBe('approved');
  });

  it('one denial ends it', () => {
    expect(
      tally(terms, [
        { identity: 'api_key:a', decision: 'approved' },
        { identity: 'api_key:b', decision: 'denied' },
      ]),
    ).toMatchObject({ status: 'denied', deniedBy: 'api_key:b' });
  });

  it('only the named approvers, and never the requester when the rule says so', () => {
    expect(whyNotEligible(terms, { identity: 'api_key:hub_x', keyPrefix: 'hub_x', role: 'admin' })).toBeNull();
    expect(whyNotEligible(terms, { identity: 'api_key:hub_fin00001', keyPrefix: 'hub_fin00001', role: 'approver' })).toBeNull();
    expect(whyNotEligible(terms, { identity: 'api_key:hub_y', keyPrefix: 'hub_y', role: 'approver' })).toBe(
      'only role admin, key hub_fin00001 may answer this approval',
    );
    expect(whyNotEligible(terms, { identity: 'api_key:hub_req00001', keyPrefix: 'hub_req00001', role: 'admin' })).toBe(
      'the requester may not approve their own call under this rule',
    );
    expect(whyNotEligible({ ...terms, requesterMayApprove: true }, { identity: 'api_key:hub_req00001', keyPrefix: 'hub_req00001', role: 'admin' })).toBeNull();
  });
});
