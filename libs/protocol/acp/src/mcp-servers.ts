import { z } from 'zod';
import { issueText } from './schema';

// `session/new` (and `session/load`) `mcpServers`, ACP v0.12.2 `McpServer`, mapped onto the hub's
// MCP server spec (the shape `@hub/agent` reads from a turn's context): stdio `{name, command,
// args, env[]}` becomes `{transport: 'stdio', command: [command, ...args], env}`, http `{type:
// 'http', url, headers[]}` becomes `{transport: 'http', url, headers}`. `sse` is refused: the hub
// advertises `mcpCapabilities.sse: false`. Pure: the allowlist check is the edge's.

const NameValue = z.object({ name: z.string().min(1), value: z.string() });
const StdioServer = z.looseObject({
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.array(NameValue).default([]),
  type: z.literal('stdio').optional(),
});
const RemoteServer = z.looseObject({ name: z.string().min(1), type: z.enum(['http', 'sse']), url: z.string().url(), headers: z.array(NameValue).default([]) });

/** An MCP server as the hub runs it (mirrors `McpServerSpec` of `@hub/agent`, plus http headers). */
export type HubMcpServer =
  | { name: string; transport: 'stdio'; command: string[]; env: Record<string, string> }
  | { name: string; transport: 'http'; url: string; headers: Record<string, string> };

export type McpServersResult = { ok: true; servers: HubMcpServer[] } | { ok: false; message: string };

const record = (pairs: readonly { name: string; value: string }[]) => Object.fromEntries(pairs.map((p) => [p.name, p.value]));

const problem = (index: number, e: z.ZodError) => `mcpServers[${index}]: ${issueText(e)}`;

function one(raw: unknown, index: number): HubMcpServer | string {
  const isRemote = typeof raw === 'object' && raw !== null && 'type' in raw && (raw as { type: unknown }).type !== 'stdio';
  if (isRemote) {
    const r = RemoteServer.safeParse(raw);
    if (!r.success) return problem(index, r.error);
    if (r.data.type === 'sse')
      return `mcpServers[${index}] (${r.data.name}): sse MCP servers are not supported (mcpCapabilities.sse is false); use type "http"`;
    return { name: r.data.name, transport: 'http', url: r.data.url, headers: record(r.data.headers) };
  }
  const r = StdioServer.safeParse(raw);
  if (!r.success) return problem(index, r.error);
  return { name: r.data.name, transport: 'stdio', command: [r.data.command, ...r.data.args], env: record(r.data.env) };
}

/** The hub form of a session's ACP `mcpServers`, or why they are refused (a -32602 message). */
export function hubMcpServers(servers: readonly unknown[]): McpServersResult {
  const out: HubMcpServer[] = [];
  for (const [i, raw] of servers.entries()) {
    const s = one(raw, i);
    if (typeof s === 'string') return { ok: false, message: s };
    if (out.some((o) => o.name === s.name)) return { ok: false, message: `mcpServers[${i}]: the name ${s.name} is used twice` };
    out.push(s);
  }
  return { ok: true, servers: out };
}
