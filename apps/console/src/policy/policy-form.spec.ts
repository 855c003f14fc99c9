import { ApiError } from '../api/client';
import { explainBody, fieldErrors, lineColumn, parseJson, ruleName } from './policy-form';

describe('policy form', () => {
  it('places a JSON error by line and column', () => {
    expect(lineColumn('{\n  "a": 1,\n  x', 14)).toEqual({ line: 3, column: 3 });
    const r = parseJson('{\n "a": 1 "b"}');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/line 2,? column 9/);
    expect(parseJson('{"rules": [,]}').ok).toBe(false);
    expect(parseJson('{"rules": []}')).toEqual({ ok: true, value: { rules: [] } });
  });

  it('reads every refused field of a 400 problem, else its one path', () => {
    const refused = new ApiError(400, 'INVALID_COMMAND', 'invalid policy at $.rules[1].match.tool: bad glob', {
      code: 'INVALID_COMMAND',
      path: '$.rules[1].match.tool',
      issues: [
        { path: ['rules', 1, 'match', 'tool'], at: '$.rules[1].match.tool', message: 'bad glob' },
        { path: ['rules', 2], at: '$.rules[2]', message: 'follows a catch-all' },
      ],
    });
    expect(fieldErrors(refused)).toEqual([
      { at: '$.rules[1].match.tool', message: 'bad glob' },
      { at: '$.rules[2]', message: 'follows a catch-all' },
    ]);
    expect(fieldErrors(new ApiError(400, 'INVALID_INPUT', 'not an object', { path: '$' }))).toEqual([{ at: '$', message: 'not an object' }]);
    expect(fieldErrors(new ApiError(409, 'STREAM_VERSION_CONFLICT', 'stale', { path: '$' }))).toEqual([]);
    expect(fieldErrors(new Error('network'))).toEqual([]);
  });

  it('builds explain’s body, leaving out what was not given', () => {
    expect(explainBody({ tool: ' delete_file ', args: '{"path": "/etc"}', executor: '', riskTier: '' })).toEqual({
      ok: true,
      body: { tool: 'delete_file', input: { path: '/etc' } },
    });
    expect(explainBody({ tool: 'pay', args: '', executor: 'mcp:payments', riskTier: 'high' })).toEqual({
      ok: true,
      body: { tool: 'pay', input: {}, executor: 'mcp:payments', riskTier: 'high' },
    });
    const bad = explainBody({ tool: 'x', args: '{path:', executor: '', riskTier: '' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/^Arguments: /);
  });

  it('names the matched rule as the hub does', () => {
    expect(ruleName({ id: 'no-outside', index: 1 })).toBe('no-outside (rule 2)');
    expect(ruleName({ id: 'default', index: null })).toBe('the default');
  });
});
