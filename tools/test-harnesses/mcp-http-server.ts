// A tiny real MCP server over streamable HTTP (the SDK's `StreamableHTTPServerTransport`, stateful:
// one session per client, ended by the client's DELETE), for tests of `transport: "http"` MCP
// servers. Tools: the stdio echo server's `echo`, `calculator` and reserved `reset` (mcp-test-tools.ts:
// same names and schemas, so the two servers can be injected together), plus its own
// `reverse {text}` → "reversed: <text backwards>" and `open_sessions` → how many sessions are open.
//
// Usage: mcp-http-server.ts [--port N]   (or MCP_HTTP_PORT=N; 0 or nothing: any free port)
// Prints its URL (`http://127.0.0.1:<port>/mcp`) as one stdout line once it listens.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mcpText, registerSharedTools } from './mcp-test-tools';

const sessions = new Map<string, StreamableHTTPServerTransport>();

/** One `McpServer` per session, as the SDK's stateful examples do. */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'mcp-http-test', version: '1.0.0' });
  registerSharedTools(server);
  server.registerTool('reverse', { description: 'Reverses the text', inputSchema: { text: z.string() } }, ({ text }) =>
    mcpText(`reversed: ${[...text].reverse().join('')}`),
  );
  server.registerTool('open_sessions', { description: 'How many MCP sessions this server holds', inputSchema: {} }, () => mcpText(String(sessions.size)));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw ? JSON.parse(raw) : undefined;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return rpcError(res, 404, -32601, 'MCP is served at /mcp');
  const sid = req.headers['mcp-session-id'];
  const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
  if (req.method !== 'POST') {
    if (!known) return rpcError(res, typeof sid === 'string' ? 404 : 400, -32000, 'unknown or missing mcp-session-id');
    return known.handleRequest(req, res);
  }
  let body: unknown;
  try {
    body = await readJson(req);
  } catch {
    return rpcError(res, 400, -32700, 'Parse error');
  }
  if (known) return known.handleRequest(req, res, body);
  if (typeof sid === 'string') return rpcError(res, 404, -32001, `session ${sid} not found`);
  if (!isInitializeRequest(body)) return rpcError(res, 400, -32000, 'start with initialize (no mcp-session-id)');
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, transport),
    onsessionclosed: (id) => void sessions.delete(id),
  });
  transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
  await mcpServer().connect(transport);
  await transport.handleRequest(req, res, body);
}

function portArg(): number {
  const i = process.argv.indexOf('--port');
  const raw = i >= 0 ? process.argv[i + 1] : process.env['MCP_HTTP_PORT'];
  const port = Number(raw ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port ${raw}`);
  return port;
}

const http = createServer((req, res) => {
  handle(req, res).catch((e: unknown) => {
    process.stderr.write(`mcp-http-server: ${(e as Error).stack ?? String(e)}\n`);
    if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
  });
});
http.listen(portArg(), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
