import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PolicyUsageError, policyRequestOf } from './policy';

describe('hub policy: the request each command makes', () => {
  it('maps commands to the HTTP API', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'policy-')), 'policy.json');
    writeFileSync(file, '{"rules": [], "default": {"outcome": "ask"}}');
    expect(policyRequestOf(['show'])).toEqual({ method: 'GET', path: '/v1/admin/policy' });
    expect(policyRequestOf(['set', file])).toEqual({ method: 'PUT', path: '/v1/admin/policy', body: { rules: [], default: { outcome: 'ask' } } });
    expect(policyRequestOf(['set', file, '--expected-version', '3']).path).toBe('/v1/admin/policy?expectedVersion=3');
    expect(policyRequestOf(['explain', 'write_file', '{"path": "tmp/a"}'])).toEqual({
      method: 'POST',
      path: '/v1/admin/policy/explain',
      body: { tool: 'write_file', input: { path: 'tmp/a' } },
    });
    expect(policyRequestOf(['explain', 'refund', '{}', '--executor', 'mcp:payments', '--risk', 'high']).body).toEqual({
      tool: 'refund',
      input: {},
      executor: 'mcp:payments',
      riskTier: 'high',
    });
  });

  it('says what is missing or malformed', () => {
    expect(() => policyRequestOf(['set'])).toThrow(PolicyUsageError);
    expect(() => policyRequestOf(['explain'])).toThrow(/needs a TOOL/);
    expect(() => policyRequestOf(['explain', 'x', '{nope'])).toThrow(/JSON_ARGS is not JSON/);
    expect(() => policyRequestOf(['fly'])).toThrow(/unknown policy command: fly/);
  });
});
