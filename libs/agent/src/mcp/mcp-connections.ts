import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allowedRedirectFetch } from './allowed-fetch';
import type { McpServerSpec } from './mcp-servers';

/** One tool as an MCP server lists it. */
export interface McpListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A `tools/call` result as the server sent it (MCP `CallToolResult`). */
export interface McpCallResult {
  content: unknown[];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

/** What the hub needs of a connected MCP server. */
export interface McpSession {
  listTools(): Promise<McpListedTool[]>;
  /** The result's text; a result the server marks `isError` is thrown as an `Error`. */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
  /** The whole result, errors included, for callers that relay it (OpenEnv's `/mcp`). */
  callToolResult(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult>;
  /** False once the connection is known to be gone (process exited, HTTP session lost). */
  alive?(): boolean;
  close(): Promise<void>;
}

/** Opens a session with a server; swapped in tests. `httpAllowed` vets every redirect of an HTTP server. */
export type McpConnector = (server: McpServerSpec, opts?: { httpAllowed?: (url: string) => boolean }) => Promise<McpSession>;

/**
 * Connects with the SDK's `Client` over stdio or streamable HTTP. A stdio server gets the SDK's
 * safe default environment (PATH, HOME...) plus its configured `env`, never the worker's secrets.
 * A connection that dies (the stdio process exits; the HTTP server forgets the session or stops
 * answering) reports `alive() === false`, so the pool opens a new one instead of failing forever.
 */
export const connectMcp: McpConnector = async (server, opts = {}) => {
  const client = new Client({ name: 'harness-hub', version: '1.0.0' });
  const transport =
    server.transport === 'stdio'
      ? new StdioClientTransport({ command: server.command[0], args: server.command.slice(1), env: server.env, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(server.url), { redirectPolicy: 'follow', fetch: allowedRedirectFetch(opts.httpAllowed ?? (() => false)) });
  let alive = true;
  client.onclose = () => void (alive = false);
  // Only a failure of the connection itself kills it; a tool's own error does not.
  const watch = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      if (connectionLost(e)) alive = false;
      throw e;
    });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> => {
    const r = await watch(client.callTool({ name, arguments: args }, undefined, { signal }));
    const content = Array.isArray(r.content) ? (r.content as unknown[]) : [];
    const structured = r.structuredContent as Record<string, unknown> | undefined;
    return { content, isError: r.isError === true, ...(structured ? { structuredContent: structured } : {}) };
  };
  return {
    async listTools() {
      const out: McpListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await watch(client.listTools(cursor ? { cursor } : undefined));
        for (const t of page.tools) out.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    },
    async callTool(name, args, signal) {
      const r = await call(name, args, signal);
      const text = mcpResultText(r.content);
      if (r.isError) throw new Error(text || `${name} failed`);
      return text;
    },
    callToolResult: call,
    alive: () => alive,
    async close() {
      alive = false;
      // Ends the server's session (HTTP DELETE) rather than leaving it to expire; best effort.
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
};

/** A tool result's text parts, joined; other parts (images, resources) as their JSON. */
export function mcpResultText(content: readonly unknown[]): string {
  return content.map((c) => (isText(c) ? c.text : JSON.stringify(c))).join('\n');
}

function isText(c: unknown): c is { type: 'text'; text: string } {
  return typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string';
}

/**
 * The HTTP server answered 404 (it no longer knows the session, e.g. it restarted) or could not
 * be reached at all (`fetch` failed); for stdio the `Client` closes itself when the process exits.
 */
function connectionLost(e: unknown): boolean {
  if (e instanceof StreamableHTTPError) return e.code === 404;
  return e instanceof TypeError && /fetch failed/i.test(e.message);
}
