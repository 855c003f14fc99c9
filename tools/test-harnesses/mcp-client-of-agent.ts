// The MCP client side of tools/test-harnesses/acp-test-agent.ts: what a real ACP agent does with
// the `mcpServers` its client sends at session/new. It connects (lazily, once per server) with
// the official MCP SDK's `Client` over stdio or streamable HTTP, finds the server that lists a
// tool, calls it, and closes every connection (stopping stdio server processes) on `closeAll`.
import type { McpServer } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A prompt `use <tool> with <json>` or `use <server>/<tool> with <json>`; null for any other prompt. */
export function parseUse(message: string): { server?: string; tool: string; args: Record<string, unknown> } | null {
  const m = /^\s*use\s+(?:([\w.-]+)\/)?([\w.-]+)\s+with\s+(\{.*\})\s*$/s.exec(message);
  if (!m) return null;
  try {
    const args = JSON.parse(m[3] as string) as unknown;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
    return { ...(m[1] ? { server: m[1] } : {}), tool: m[2] as string, args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}

export class AgentMcpClients {
  private readonly clients = new Map<string, Promise<Client>>();

  constructor(private readonly servers: readonly McpServer[]) {}

  /** The names of the servers the client gave, in its order. */
  get names(): string[] {
    return this.servers.map((s) => s.name);
  }

  /** Calls `tool` on the named server, or on the first server that lists it. */
  async call(serverName: string | undefined, tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }> {
    const candidates = serverName ? this.servers.filter((s) => s.name === serverName) : this.servers;
    if (candidates.length === 0)
      throw new Error(serverName ? `no MCP server named ${serverName} was given at session/new` : 'no MCP server was given at session/new');
    for (const server of candidates) {
      const client = await this.client(server);
      const { tools } = await client.listTools();
      if (!tools.some((t) => t.name === tool)) continue;
      const result = await client.callTool({ name: tool, arguments: args });
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
      const text = content.flatMap((c) => (c.type === 'text' && c.text !== undefined ? [c.text] : [])).join('\n');
      return { ok: result.isError !== true, text };
    }
    throw new Error(`no MCP server ${serverName ?? 'of this session'} lists a tool ${tool}`);
  }

  async closeAll(): Promise<void> {
    const open = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(open.map((c) => c.then((client) => client.close()).catch(() => undefined)));
  }

  private client(server: McpServer): Promise<Client> {
    let client = this.clients.get(server.name);
    if (!client) {
      client = connect(server);
      this.clients.set(server.name, client);
      client.catch(() => this.clients.delete(server.name));
    }
    return client;
  }
}

async function connect(server: McpServer): Promise<Client> {
  const client = new Client({ name: 'acp-test-agent', version: '1.0.0' });
  if ('type' in server && server.type === 'sse') throw new Error(`MCP server ${server.name}: sse is not supported by this agent`);
  const transport =
    'type' in server && server.type === 'http'
      ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) } })
      : 'command' in server
        ? new StdioClientTransport({
            command: server.command,
            args: server.args,
            env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
            stderr: 'ignore',
          })
        : null;
  if (!transport) throw new Error(`MCP server ${server.name}: unknown transport`);
  await client.connect(transport);
  return client;
}
