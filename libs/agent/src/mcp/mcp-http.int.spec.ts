import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { McpServerSpec } from './mcp-servers';
import { McpPool } from './mcp-pool';
import { buildMcpRegistry, listMcpTools, mcpToolsFrom, resolveMcpTools } from './mcp-tools';

// `transport: "http"` MCP servers against the real streamable-HTTP server in tools/test-harnesses
// (the SDK's StreamableHTTPServerTransport, run as a child process), beside the stdio one.
jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../../../..');
const REGISTER = ['-r', path.join(ROOT, 'node_modules/@swc-node/register/index.js')];
const SWC_ENV = { SWC_NODE_PROJECT: path.join(ROOT, 'tsconfig.base.json') };
const ECHO = [process.execPath, ...REGISTER, path.join(ROOT, 'tools/test-harnesses/mcp-echo-server.ts')];
const ctx = { tenantId: 't', sessionId: 's', signal: new AbortController().signal, files: new Map<string, string>() };

/** Starts tools/test-harnesses/mcp-http-server.ts and waits for the URL it prints. */
async function startHttpServer(port = 0): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...REGISTER, path.join(ROOT, 'tools/test-harnesses/mcp-http-server.ts'), '--port', String(port)], {
    env: { ...process.env, ...SWC_ENV },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = child.stdout;
  if (!stdout) throw new Error('no stdout pipe');
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mcp-http-server exited (${code}) before listening`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

let server: { child: ChildProcess; url: string };
let pool: McpPool;
const web = (): McpServerSpec => ({ name: 'web', transport: 'http', url: server.url });

beforeEach(async () => {
  server = await startHttpServer();
  pool = new McpPool({ idleMs: 0, stdioAllowlist: [ECHO], httpAllowlist: [server.url] });
});
afterEach(async () => {
  await pool.close();
  await stop(server.child);
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

  it('relays a whole result, and a bad argument as the server\'s error result', async () => {
    const session = await pool.session(web());
    await expect(session.callToolResult('echo', { text: 'hi' })).resolves.toEqual({ content: [{ type: 'text', text: 'echo: hi' }], isError: false });
    const bad = await session.callToolResult('echo', { text: 42 });
    expect(bad.isError).toBe(true);
    await expect(session.callTool('echo', { text: 42 })).rejects.toThrow(/text/);
  });

  it('is injected beside a stdio server: a tool both list with one schema is offered once, the HTTP one keeps its own', async () => {
    const stdio: McpServerSpec = { name: 'echo', transport: 'stdio', command: [...ECHO, 'a'], env: SWC_ENV };
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
    await stop(server.child);
    server = await startHttpServer(Number(port));
    await expect(first.callTool('echo', { text: 'lost' })).rejects.toThrow();
    expect(first.alive?.()).toBe(false);
    const second = await pool.session(web());
    expect(second).not.toBe(first);
    await expect(second.callTool('echo', { text: 'two' })).resolves.toBe('echo: two');
  });

  it('refuses a server that does not answer, and does not keep the failed connection', async () => {
    const port = new URL(server.url).port;
    await stop(server.child);
    const gone: McpServerSpec = { name: 'gone', transport: 'http', url: `http://127.0.0.1:${port}/mcp` };
    await expect(pool.session(gone)).rejects.toThrow();
    server = await startHttpServer(Number(port));
    await expect((await pool.session(gone)).callTool('echo', { text: 'back' })).resolves.toBe('echo: back');
  });
});
