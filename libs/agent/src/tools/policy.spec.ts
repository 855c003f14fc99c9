import { parsePolicy } from '@hub/policy';
import { decidePolicy, type LoadedPolicy } from './policy';
import { calculatorTool, deleteFileTool, writeFileTool } from './builtin';

function loaded(input: unknown, version = 3): LoadedPolicy {
  const parsed = parsePolicy(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return { version, policy: parsed.policy };
}

describe('decidePolicy', () => {
  it('without a tenant policy, each tool keeps its own default and risk tier (version 0, the default rule)', () => {
    expect(decidePolicy(calculatorTool, { expression: '1' })).toEqual({
      decision: 'allow',
      riskTier: 'low',
      reason: "calculator: allowed by the default: no rule matched; calculator's own default (low risk) [policy v0]",
      rule: { version: 0, rule: 'default', ruleIndex: null },
      approval: null,
    });
    expect(decidePolicy(writeFileTool, { path: 'a', content: '' })).toMatchObject({ decision: 'ask', riskTier: 'medium', approval: { required: 1 } });
    expect(decidePolicy(deleteFileTool, { path: 'a' })).toMatchObject({ decision: 'ask', riskTier: 'high' });
  });

  it("decides on the call's arguments under the tenant's policy, naming the rule and version", () => {
    const p = loaded({ rules: [{ id: 'tmp', match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'tmp/**' }] }, outcome: 'allow' }] });
    expect(decidePolicy(writeFileTool, { path: 'tmp/x', content: '' }, p)).toMatchObject({
      decision: 'allow',
      rule: { version: 3, rule: 'tmp', ruleIndex: 0 },
    });
    expect(decidePolicy(writeFileTool, { path: 'x', content: '' }, p)).toMatchObject({ decision: 'ask', rule: { rule: 'default' } });
  });

  it('a session override tightens, for that tool only, and never loosens a tenant rule', () => {
    const overrides = { delete_file: 'deny', write_file: 'allow' } as const;
    expect(decidePolicy(deleteFileTool, {}, undefined, overrides)).toMatchObject({ decision: 'deny', rule: { rule: 'session-override' } });
    // write_file asks by default: an override to allow would loosen it.
    expect(decidePolicy(writeFileTool, {}, undefined, overrides).decision).toBe('ask');
    expect(decidePolicy(calculatorTool, {}, undefined, overrides).decision).toBe('allow');
    const lax = loaded({ sessionOverrides: 'any' });
    expect(decidePolicy(writeFileTool, {}, lax, overrides).decision).toBe('allow');
  });

  it('ignores inherited keys in overrides', () => {
    const overrides = Object.create({ calculator: 'deny' }) as Record<string, 'deny'>;
    expect(decidePolicy(calculatorTool, {}, undefined, overrides).decision).toBe('allow');
  });
});
