import { MCP_CONTEXT_KEY, McpServerSpec, mcpServerRefusal, type McpAllowlists } from '@hub/agent';
import { AcpRpcError, hubMcpServers, RPC } from '@hub/protocol-acp';

// A session's ACP `mcpServers` are injected into its tools: mapped to the hub's MCP server spec,
// checked here (against the operator's HUB_MCP_STDIO_COMMANDS and HUB_MCP_HTTP_URLS), and put
// into every turn's context under MCP_CONTEXT_KEY, where the worker builds the turn's registry.

/** The hub MCP server specs of `mcpServers`, or -32602 saying which server is refused and why. */
export function sessionMcpServers(raw: readonly unknown[], allow: McpAllowlists): McpServerSpec[] {
  const mapped = hubMcpServers(raw);
  if (!mapped.ok) throw new AcpRpcError(RPC.INVALID_PARAMS, mapped.message);
  return mapped.servers.map((s) => {
    const spec = McpServerSpec.safeParse(s);
    if (!spec.success)
      throw new AcpRpcError(RPC.INVALID_PARAMS, `MCP server ${s.name}: ${spec.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`, {
        server: s.name,
      });
    const refused = mcpServerRefusal(spec.data, allow);
    if (refused) throw new AcpRpcError(RPC.INVALID_PARAMS, refused.message, { server: s.name });
    // Headers the hub's spec cannot carry would be dropped silently: refuse instead.
    if (s.transport === 'http' && Object.keys(s.headers).length > 0 && !('headers' in spec.data)) {
      throw new AcpRpcError(RPC.INVALID_PARAMS, `MCP server ${s.name}: http headers are not supported by this hub yet`, { server: s.name });
    }
    return spec.data;
  });
}

/** The part of a turn's context that injects the session's MCP servers (nothing when none). */
export const mcpContext = (servers: readonly McpServerSpec[]) => (servers.length > 0 ? { [MCP_CONTEXT_KEY]: servers } : {});
