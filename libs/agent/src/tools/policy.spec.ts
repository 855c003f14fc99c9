import { decidePolicy } from './policy';
import { calculatorTool, deleteFileTool, writeFileTool } from './builtin';

describe('decidePolicy', () => {
  it('uses the tool default policy and risk tier', () => {
    expect(decidePolicy(calculatorTool, { expression: '1' })).toEqual({
      decision: 'allow',
      riskTier: 'low',
      reason: 'calculator (low risk): allowed by default policy',
    });
    expect(decidePolicy(writeFileTool, { path: 'a', content: '' })).toMatchObject({ decision: 'ask', riskTier: 'medium' });
    expect(decidePolicy(deleteFileTool, { path: 'a' })).toMatchObject({ decision: 'ask', riskTier: 'high' });
  });

  it('lets a session override win, for that tool only', () => {
    const overrides = { delete_file: 'deny', write_file: 'allow' } as const;
    expect(decidePolicy(deleteFileTool, {}, overrides)).toEqual({
      decision: 'deny',
      riskTier: 'high',
      reason: 'delete_file (high risk): denied by session override',
    });
    expect(decidePolicy(writeFileTool, {}, overrides).decision).toBe('allow');
    expect(decidePolicy(calculatorTool, {}, overrides).decision).toBe('allow');
  });

  it('ignores inherited keys in overrides', () => {
    const overrides = Object.create({ calculator: 'deny' }) as Record<string, 'deny'>;
    expect(decidePolicy(calculatorTool, {}, overrides).decision).toBe('allow');
  });
});
