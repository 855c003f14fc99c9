import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowedRedirectFetch } from './allowed-fetch';
import { McpPool, httpAllowed } from './mcp-pool';

// Issue 11, defect 9: a tenant's HTTP MCP server may redirect only inside what the operator
// allows, and a path prefix without a trailing slash must not admit its siblings.

let server: Server;
let origin = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const to: Record<string, [number, string]> = { '/mcp/old': [308, '/mcp/new'], '/mcp/evil': [307, '/admin'], '/mcp/loop': [302, '/mcp/loop'] };
    const r = to[req.url ?? ''];
    if (r) return void res.writeHead(r[0], { location: r[1] }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`at ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => void hits.splice(0));

const allowMcp = (url: string) => httpAllowed(url, [`${origin}/mcp`]);

it('a path prefix admits itself and what is under it, never a sibling', () => {
  expect(httpAllowed('http://h:1/mcp', ['http://h:1/mcp'])).toBe(true);
  expect(httpAllowed('http://h:1/mcp/x', ['http://h:1/mcp'])).toBe(true);
  expect(httpAllowed('http://h:1/mcpx', ['http://h:1/mcp'])).toBe(false);
  expect(httpAllowed('http://h:1/mcp-admin/x', ['http://h:1/mcp'])).toBe(false);
  expect(httpAllowed('http://h:1/mcp/x', ['http://h:1/mcp/'])).toBe(true);
});

it('follows a redirect that stays inside the allowlist, keeping a 308 POST a POST', async () => {
  const res = await allowedRedirectFetch(allowMcp)(`${origin}/mcp/old`, { method: 'POST', body: '{}' });
  expect(await res.text()).toBe('at /mcp/new');
  expect(hits).toEqual(['POST /mcp/old', 'POST /mcp/new']);
});

it('refuses a same-origin redirect outside the allowed path, without requesting it', async () => {
  await expect(allowedRedirectFetch(allowMcp)(`${origin}/mcp/evil`, { method: 'POST', body: '{}' })).rejects.toThrow(
    /redirected to .*\/admin, which is not allowed/,
  );
  expect(hits).toEqual(['POST /mcp/evil']);
});

it('gives up on a redirect loop', async () => {
  await expect(allowedRedirectFetch(allowMcp)(`${origin}/mcp/loop`)).rejects.toThrow(/more than 5 times/);
});

it('an MCP connection through the pool uses it: the redirect target is never reached', async () => {
  const pool = new McpPool({ idleMs: 0, httpAllowlist: [`${origin}/mcp`] });
  try {
    await expect(pool.session({ name: 'web', transport: 'http', url: `${origin}/mcp/evil` })).rejects.toThrow(/not allowed on this hub/);
    expect(hits.some((h) => h.includes('/admin'))).toBe(false);
  } finally {
    await pool.close();
  }
});
