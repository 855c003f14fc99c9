import { startMcpHttpServer, testCommandRule, testHarnessCommand } from '@hub/testing';
import type { McpServerSpec } from './mcp-servers';
import { McpPool } from './mcp-pool';
import { buildMcpRegistry, listMcpTools, mcpToolsFrom, resolveMcpTools } from './mcp-tools';

// `transport: "http"` MCP servers against the real streamable-HTTP server in tools/test-harnesses
// (the SDK's StreamableHTTPServerTransport, run as a child process), beside the stdio one.
jest.setTimeout(60_000);

const ECHO = testHarnessCommand('mcp-echo-server.ts');
const ctx = { tenantId: 't', sessionId: 's', signal: new AbortController().signal, files: new Map<string, string>() };

let server: Awaited<ReturnType<typeof startMcpHttpServer>>;
let pool: McpPool;
const web = (): McpServerSpec => ({ name: 'web', transport: 'http', url: server.url });

beforeEach(async () => {
  server = await startMcpHttpServer();
  pool = new McpPool({ idleMs: 0, stdioAllowlist: [testCommandRule(ECHO)], httpAllowlist: [server.url] });
});
afterEach(async () => {
  await pool.close();
  await server.stop();
});

describe('streamable HTTP MCP servers', () => {
  it('lists and calls the tools through buildMcpRegistry: env_ on a clash, never reset', async () => {
    const registry = await buildMcpRegistry([web()], pool);
    const names = registry.list().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'calculator', 'echo', 'env_calculator', 'reverse', 'open_sessions']));
    expect(names).not.toContain('reset');
    expect(registry.get('reverse')).toMatchObject({ executor: 'mcp:web', inputSchema: { properties: { text: { type: 'string' } } } });
    await expect(registry.get('reverse')?.execute({ text: 'abc' }, ctx)).resolves.toBe('reversed: cba');
    await expect(registry.get('env_calculator')?.execute({ expression: '1+1' }, ctx)).resolves.toBe('mcp calculator: 1+1');
  });

  it("relays a whole result, and a bad argument as the server's error result", async () => {
    const session = await pool.session(web());
    await expect(session.callToolResult('echo', { text: 'hi' })).resolves.toEqual({ content: [{ type: 'text', text: 'echo: hi' }], isError: false });
    const bad = await session.callToolResult('echo', { text: 42 });
    expect(bad.isError).toBe(true);
    await expect(session.callTool('echo', { text: 42 })).rejects.toThrow(/text/);
  });

  it('is injected beside a stdio server: a tool both list with one schema is offered once, the HTTP one keeps its own', async () => {
    const stdio: McpServerSpec = { name: 'echo', transport: 'stdio', command: [...ECHO, 'a'], env: {} };
    const targets = resolveMcpTools(await listMcpTools([stdio, web()], pool), new Set(['calculator']));
    expect(targets.map((t) => [t.name, t.server])).toEqual([
      ['echo', 'echo'],
      ['env_calculator', 'echo'],
      ['reverse', 'web'],
      ['open_sessions', 'web'],
    ]);
    expect(mcpToolsFrom(await listMcpTools([web(), stdio], pool), new Set()).find((t) => t.name === 'echo')?.executor).toBe('mcp:web');
  });

  it('keeps one session per scope, and ends it on the server when the pool closes', async () => {
    const a = await pool.session(web(), 'tenant-a');
    expect(await pool.session(web(), 'tenant-a')).toBe(a);
    const b = await pool.session(web(), 'tenant-b');
    expect(b).not.toBe(a);
    await expect(b.callTool('open_sessions', {})).resolves.toBe('2');
    const other = new McpPool({ idleMs: 0, httpAllowlist: [new URL(server.url).origin + '/'] });
    const watcher = await other.session(web());
    await expect(watcher.callTool('open_sessions', {})).resolves.toBe('3');
    await pool.close();
    await expect(watcher.callTool('open_sessions', {})).resolves.toBe('1');
    await other.close();
  });

  it('replaces a session the server lost (restarted) instead of failing on every later call', async () => {
    const first = await pool.session(web());
    await expect(first.callTool('echo', { text: 'one' })).resolves.toBe('echo: one');
    const port = new URL(server.url).port;
    await server.stop();
    server = await startMcpHttpServer(Number(port));
    await expect(first.callTool('echo', { text: 'lost' })).rejects.toThrow();
    expect(first.alive?.()).toBe(false);
    const second = await pool.session(web());
    expect(second).not.toBe(first);
    await expect(second.callTool('echo', { text: 'two' })).resolves.toBe('echo: two');
  });

  it('refuses a server that does not answer, and does not keep the failed connection', async () => {
    const port = new URL(server.url).port;
    await server.stop();
    const gone: McpServerSpec = { name: 'gone', transport: 'http', url: `http://127.0.0.1:${port}/mcp` };
    await expect(pool.session(gone)).rejects.toThrow();
    server = await startMcpHttpServer(Number(port));
    await expect((await pool.session(gone)).callTool('echo', { text: 'back' })).resolves.toBe('echo: back');
  });
});
