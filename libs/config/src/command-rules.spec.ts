import { commandRule, parseCommandRules, ruleEnv, tenantEnvRefused } from './command-rules';
import { loadSchemaFor } from './command-rules.testing';

describe('command allowlist entries with their environment', () => {
  it('parses prefixes, operator-fixed values and tenant-settable names', () => {
    const { rules, problems } = parseCommandRules('node /opt/a.js env:REGION,TOKEN,NODE_ENV=production; python3 /opt/b.py');
    expect(problems).toEqual([]);
    expect(rules).toEqual([
      { prefix: ['node', '/opt/a.js'], fixedEnv: { NODE_ENV: 'production' }, tenantEnv: ['REGION', 'TOKEN'] },
      { prefix: ['python3', '/opt/b.py'], fixedEnv: {}, tenantEnv: [] },
    ]);
  });

  it.each(['NODE_OPTIONS', 'LD_PRELOAD', 'PATH', 'PYTHONSTARTUP', 'BASH_ENV', 'DYLD_INSERT_LIBRARIES', 'DATABASE_URL', 'HUB_MODEL_API_KEY'])(
    'refuses %s as tenant-settable at boot, naming it',
    (name) => {
      expect(parseCommandRules(`node /opt/a.js env:${name}`).problems).toEqual([expect.stringContaining(`${name} may not be set by a tenant`)]);
      expect(loadSchemaFor(`node /opt/a.js env:${name}`)).toThrow(new RegExp(`HUB_MCP_STDIO_COMMANDS: .*${name} may not be set by a tenant`));
    },
  );

  it('matches the longest whole-word prefix and lets only its names through', () => {
    const { rules } = parseCommandRules('node; node /opt/a.js env:REGION');
    const rule = commandRule(['node', '/opt/a.js', '--x'], rules);
    if (!rule) throw new Error('no rule matched');
    expect(rule.prefix).toEqual(['node', '/opt/a.js']);
    expect(commandRule(['node2'], rules)).toBeUndefined();
    expect(tenantEnvRefused(rule, { REGION: 'eu', NODE_OPTIONS: '--import=x' })).toEqual(['NODE_OPTIONS']);
    expect(ruleEnv({ PATH: '/usr/bin' }, rule, { REGION: 'eu', NODE_OPTIONS: '--import=x', PATH: '/tmp/evil' })).toEqual({ PATH: '/usr/bin', REGION: 'eu' });
  });
});
