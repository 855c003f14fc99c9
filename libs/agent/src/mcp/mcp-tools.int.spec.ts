import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { testCommandRule, testHarnessCommand } from '@hub/testing';
import { McpConfigError, type McpServerSpec } from './mcp-servers';
import { McpNotAllowedError, McpPool, httpAllowed, stdioAllowed } from './mcp-pool';
import { buildMcpRegistry, listMcpTools, mcpToolsFrom } from './mcp-tools';

// Against the real stdio MCP server in tools/test-harnesses (spawned through the SDK).
jest.setTimeout(30_000);

// The stdio command that runs tools/test-harnesses/mcp-echo-server.ts, as bin/hub runs the hub.
const server = (name: string, variant: 'a' | 'b'): McpServerSpec => ({
  name,
  transport: 'stdio',
  command: testHarnessCommand('mcp-echo-server.ts', variant),
  env: {},
});
// What an operator would put in HUB_MCP_STDIO_COMMANDS: the interpreter and the server script.
const ALLOW = [testCommandRule(testHarnessCommand('mcp-echo-server.ts'))];
const ctx = { tenantId: 't', sessionId: 's', signal: new AbortController().signal, files: new Map<string, string>() };

let pool: McpPool;
beforeEach(() => (pool = new McpPool({ idleMs: 0, stdioAllowlist: ALLOW })));
afterEach(() => pool.close());

describe('stdio MCP servers are off unless the operator allows the command', () => {
  it('refuses any stdio command by default, and one outside the allowlist', async () => {
    const closed = new McpPool({ idleMs: 0 });
    await expect(closed.session(server('echo', 'a'))).rejects.toBeInstanceOf(McpNotAllowedError);
    await expect(pool.session({ name: 'evil', transport: 'stdio', command: ['/bin/sh', '-c', 'id'], env: {} })).rejects.toThrow(/not allowed on this hub/);
    await closed.close();
  });

  it('matches whole argv prefixes, not string prefixes', () => {
    const rule = [{ prefix: ['node', '/opt/mcp/server.js'], fixedEnv: {}, tenantEnv: [] }];
    expect(stdioAllowed(['node', '/opt/mcp/server.js', '--x'], rule)).toBe(true);
    expect(stdioAllowed(['node', '/opt/mcp/server.js.evil'], rule)).toBe(false);
    expect(stdioAllowed(['node'], rule)).toBe(false);
    expect(stdioAllowed(['node', 'x.js'], [])).toBe(false);
  });
});

describe("a stdio server's environment is the operator's, not the tenant's (issue 11, defect 2)", () => {
  const marker = () => join(tmpdir(), `hub-env-${randomUUID()}`);
  const echo = (env: Record<string, string>): McpServerSpec => ({
    name: 'echo',
    transport: 'stdio',
    command: testHarnessCommand('mcp-echo-server.ts', 'a'),
    env,
  });
  // Code Node runs before the server when NODE_OPTIONS reaches it: it writes what it sees to `file`.
  const spy = (file: string) =>
    `--import=data:text/javascript,${encodeURIComponent(`import fs from "node:fs";fs.writeFileSync(${JSON.stringify(file)},JSON.stringify(process.env))`)}`;

  it('a tenant NODE_OPTIONS (an allowed node command) is refused, and no code of the tenant runs', async () => {
    const file = marker();
    await expect(pool.session(echo({ NODE_OPTIONS: spy(file) }))).rejects.toThrow(/environment variable NODE_OPTIONS may not be set/);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(file)).toBe(false);
  });

  it('the child gets the operator fixed values and the names the rule lets a tenant set, and nothing else', async () => {
    const file = marker();
    // The operator may fix NODE_OPTIONS: here it preloads a script that records the environment.
    const preload = `${marker()}.cjs`;
    writeFileSync(preload, `require('node:fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.env));`);
    const rule = { ...testCommandRule(testHarnessCommand('mcp-echo-server.ts'), ['REGION']) };
    rule.fixedEnv = { ...rule.fixedEnv, NODE_OPTIONS: `--require=${preload}` };
    const opened: string[] = [];
    const p = new McpPool({
      idleMs: 0,
      stdioAllowlist: [rule],
      openEnv: async (scope, env) => (opened.push(scope), { ...env, REGION: env.REGION === 'ref' ? 'eu-west' : 'unopened' }),
    });
    try {
      await expect(p.session(echo({ REGION: 'ref', OTHER: 'x' }), 't1')).rejects.toThrow(/environment variable OTHER may not be set/);
      await (await p.session(echo({ REGION: 'ref' }), 't1')).listTools();
      const seen = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      expect(seen.REGION).toBe('eu-west');
      expect(opened).toEqual(['t1']);
      expect(seen.SWC_NODE_PROJECT).toBeDefined();
      expect(seen.OTHER).toBeUndefined();
      expect(seen.DATABASE_URL).toBeUndefined();
    } finally {
      await p.close();
    }
  });
});

describe('HTTP MCP servers are off unless the operator allows the URL', () => {
  it('refuses any URL by default, and one outside the allowlist', async () => {
    const web = { name: 'web', transport: 'http' as const, url: 'http://169.254.169.254/latest/meta-data' };
    await expect(pool.session(web)).rejects.toThrow(/URL http:\/\/169\.254\.169\.254\/latest\/meta-data is not allowed on this hub \(HUB_MCP_HTTP_URLS\)/);
    const open = new McpPool({ idleMs: 0, httpAllowlist: ['https://mcp.example.com/tools/'] });
    await expect(open.session(web)).rejects.toBeInstanceOf(McpNotAllowedError);
    await open.close();
  });

  it('matches the whole origin and a path prefix, never a longer host or embedded credentials', () => {
    const allow = ['https://mcp.example.com/tools/', 'http://127.0.0.1:8931'];
    expect(httpAllowed('https://mcp.example.com/tools/search', allow)).toBe(true);
    expect(httpAllowed('http://127.0.0.1:8931/mcp', allow)).toBe(true);
    expect(httpAllowed('https://mcp.example.com.evil.net/tools/x', allow)).toBe(false);
    expect(httpAllowed('https://mcp.example.com/other', allow)).toBe(false);
    expect(httpAllowed('http://127.0.0.1:8932/mcp', allow)).toBe(false);
    expect(httpAllowed('http://mcp.example.com/tools/x', allow)).toBe(false);
    expect(httpAllowed('https://user:pw@mcp.example.com/tools/x', allow)).toBe(false);
    expect(httpAllowed('not a url', allow)).toBe(false);
  });
});

describe('MCP tool injection', () => {
  it('adds the server tools to the built-ins, prefixes a clash with env_, never offers reset, and calls through', async () => {
    const registry = await buildMcpRegistry([server('echo', 'a')], pool);
    const names = registry.list().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'calculator', 'echo', 'env_calculator']));
    expect(names).not.toContain('reset');
    const echo = registry.get('echo');
    expect(echo).toMatchObject({ executor: 'mcp:echo', policy: 'allow' });
    expect(echo?.inputSchema).toMatchObject({ properties: { text: { type: 'string' } } });
    await expect(echo?.execute({ text: 'hi' }, ctx)).resolves.toBe('echo: hi');
    await expect(registry.get('env_calculator')?.execute({ expression: '1+1' }, ctx)).resolves.toBe('mcp calculator: 1+1');
    expect(registry.get('calculator')?.executor).toBe('builtin');
  });

  it('refuses the same tool name with different schemas across servers; the same schema is offered once', async () => {
    await expect(buildMcpRegistry([server('one', 'a'), server('two', 'b')], pool)).rejects.toThrow(McpConfigError);
    await expect(buildMcpRegistry([server('one', 'a'), server('two', 'b')], pool)).rejects.toThrow(/echo.*one.*two/);
    const twice = mcpToolsFrom(await listMcpTools([server('one', 'a'), server('again', 'a')], pool), new Set());
    expect(twice.filter((t) => t.name === 'echo').map((t) => t.executor)).toEqual(['mcp:one']);
  });

  it('reuses a connection per server spec, and sweeps idle ones', async () => {
    let connects = 0;
    let closes = 0;
    let now = 0;
    const fake = new McpPool({
      idleMs: 1000,
      stdioAllowlist: ALLOW,
      now: () => now,
      connect: async () => (
        connects++,
        { listTools: async () => [], callTool: async () => '', callToolResult: async () => ({ content: [], isError: false }), close: async () => void closes++ }
      ),
    });
    await fake.session(server('x', 'a'));
    await fake.session(server('x', 'a'));
    expect(connects).toBe(1);
    now = 5000;
    await fake.sweep();
    expect(closes).toBe(1);
    await fake.session(server('x', 'a'));
    expect(connects).toBe(2);
    await fake.close();
  });
});
