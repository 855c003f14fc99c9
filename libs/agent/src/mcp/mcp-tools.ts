import type { ToolPolicyDecision } from '@hub/domain';
import { BUILTIN_TOOLS } from '../tools/builtin';
import { ToolRegistry } from '../tools/registry';
import { ToolInputError, type Tool } from '../tools/types';
import type { McpListedTool, McpSession } from './mcp-connections';
import type { McpPool } from './mcp-pool';
import { McpConfigError, RESERVED_MCP_TOOL_NAMES, type McpServerSpec } from './mcp-servers';

/** Prefix of an MCP tool whose name a built-in tool already has. */
export const MCP_CLASH_PREFIX = 'env_';

/** One server's listed tools. */
export interface McpListing {
  server: string;
  session: McpSession;
  tools: McpListedTool[];
}

/** Connects to each server (through the pool, in `scope`: see {@link McpPool.session}) and lists its tools. */
export async function listMcpTools(servers: readonly McpServerSpec[], pool: McpPool, scope = ''): Promise<McpListing[]> {
  return Promise.all(
    servers.map(async (s) => {
      const session = await pool.session(s, scope);
      return { server: s.name, session, tools: await session.listTools() };
    }),
  );
}

/** An injected tool's name (after `env_` prefixing) and where it goes: its server and listed tool. */
export interface McpToolTarget {
  name: string;
  server: string;
  session: McpSession;
  listed: McpListedTool;
}

/**
 * The injected tools, from what the servers list: `reset`/`step`/`state`/`close` are never
 * offered; a name a built-in tool has is prefixed `env_`; a name two servers list with the same
 * schema is offered once (the first server's); with different schemas it is an
 * {@link McpConfigError} (refused when the environment is configured).
 */
export function resolveMcpTools(listings: readonly McpListing[], builtinNames: ReadonlySet<string>): McpToolTarget[] {
  const seen = new Map<string, { server: string; schema: string }>();
  const targets: McpToolTarget[] = [];
  for (const { server, session, tools: listed } of listings) {
    for (const t of listed) {
      if (RESERVED_MCP_TOOL_NAMES.has(t.name)) continue;
      const schema = canonicalJson(t.inputSchema);
      const prior = seen.get(t.name);
      if (prior && prior.schema !== schema) {
        throw new McpConfigError(`MCP tool ${t.name} has different input schemas on servers ${prior.server} and ${server}`);
      }
      if (prior) continue;
      seen.set(t.name, { server, schema });
      targets.push({ name: builtinNames.has(t.name) ? `${MCP_CLASH_PREFIX}${t.name}` : t.name, server, session, listed: t });
    }
  }
  return targets;
}

/** The injected tools of a turn ({@link resolveMcpTools}) as agent tools, each with `policy`. */
export function mcpToolsFrom(listings: readonly McpListing[], builtinNames: ReadonlySet<string>, policy: ToolPolicyDecision = 'allow'): Tool[] {
  return resolveMcpTools(listings, builtinNames).map((t) => mcpTool(t, policy));
}

/** A turn's registry: the built-in tools plus the MCP servers' tools (connected in `scope`). */
export async function buildMcpRegistry(
  servers: readonly McpServerSpec[],
  pool: McpPool,
  builtins: readonly Tool[] = BUILTIN_TOOLS,
  scope = '',
): Promise<ToolRegistry> {
  if (servers.length === 0) return new ToolRegistry([...builtins]);
  const injected = mcpToolsFrom(await listMcpTools(servers, pool, scope), new Set(builtins.map((t) => t.name)));
  return new ToolRegistry([...builtins, ...injected]);
}

function mcpTool({ server, session, listed, name }: McpToolTarget, policy: ToolPolicyDecision): Tool {
  return {
    name,
    description: listed.description || `${listed.name} (MCP server ${server})`,
    inputSchema: listed.inputSchema,
    policy,
    riskTier: 'medium',
    executor: `mcp:${server}`,
    async execute(input, ctx) {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ToolInputError(name, `${name} takes a JSON object`);
      return session.callTool(listed.name, input as Record<string, unknown>, ctx.signal);
    },
  };
}

/** JSON with object keys sorted, so two equal schemas compare equal whatever their key order. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
