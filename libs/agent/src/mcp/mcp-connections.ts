import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSpec } from './mcp-servers';

/** One tool as an MCP server lists it. */
export interface McpListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What the hub needs of a connected MCP server. */
export interface McpSession {
  listTools(): Promise<McpListedTool[]>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/** Opens a session with a server; swapped in tests. */
export type McpConnector = (server: McpServerSpec) => Promise<McpSession>;

/**
 * Connects with the SDK's `Client` over stdio or streamable HTTP. A stdio server gets the SDK's
 * safe default environment (PATH, HOME...) plus its configured `env`, never the worker's secrets.
 */
export const connectMcp: McpConnector = async (server) => {
  const client = new Client({ name: 'harness-hub', version: '1.0.0' });
  const transport =
    server.transport === 'stdio'
      ? new StdioClientTransport({ command: server.command[0], args: server.command.slice(1), env: server.env, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  return {
    async listTools() {
      const out: McpListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        for (const t of page.tools) out.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    },
    async callTool(name, args, signal) {
      const r = await client.callTool({ name, arguments: args }, undefined, { signal });
      const text = textOf(r.content);
      if (r.isError) throw new Error(text || `${name} failed`);
      return text;
    },
    close: () => client.close(),
  };
};

/** A tool result's text parts, joined; other parts (images, resources) as their JSON. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('\n');
}
