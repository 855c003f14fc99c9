import { MCP_CONTEXT_KEY, McpServerSpec, stdioAllowed } from '@hub/agent';
import { AcpRpcError, hubMcpServers, RPC } from '@hub/protocol-acp';

// A session's ACP `mcpServers` are injected into its tools: mapped to the hub's MCP server spec,
// checked here (stdio commands against the operator's allowlist, HUB_MCP_STDIO_COMMANDS), and put
// into every turn's context under MCP_CONTEXT_KEY, where the worker builds the turn's registry.

/** The hub MCP server specs of `mcpServers`, or -32602 saying which server is refused and why. */
export function sessionMcpServers(raw: readonly unknown[], stdioAllowlist: readonly (readonly string[])[]): McpServerSpec[] {
  const mapped = hubMcpServers(raw);
  if (!mapped.ok) throw new AcpRpcError(RPC.INVALID_PARAMS, mapped.message);
  return mapped.servers.map((s) => {
    if (s.transport === 'stdio' && !stdioAllowed(s.command, stdioAllowlist)) {
      throw new AcpRpcError(RPC.INVALID_PARAMS, `MCP server ${s.name}: stdio command "${s.command.join(' ')}" is not allowed on this hub (the operator's HUB_MCP_STDIO_COMMANDS)`, { server: s.name });
    }
    const spec = McpServerSpec.safeParse(s);
    if (!spec.success) throw new AcpRpcError(RPC.INVALID_PARAMS, `MCP server ${s.name}: ${spec.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`, { server: s.name });
    // Headers the hub's spec cannot carry would be dropped silently: refuse instead.
    if (s.transport === 'http' && Object.keys(s.headers).length > 0 && !('headers' in spec.data)) {
      throw new AcpRpcError(RPC.INVALID_PARAMS, `MCP server ${s.name}: http headers are not supported by this hub yet`, { server: s.name });
    }
    return spec.data;
  });
}

/** The part of a turn's context that injects the session's MCP servers (nothing when none). */
export const mcpContext = (servers: readonly McpServerSpec[]) => (servers.length > 0 ? { [MCP_CONTEXT_KEY]: servers } : {});
