export { connectMcp, mcpResultText, type McpCallResult, type McpConnector, type McpListedTool, type McpSession } from './mcp-connections';
export { McpNotAllowedError, McpPool, httpAllowed, mcpServerRefusal, stdioAllowed, type McpAllowlists } from './mcp-pool';
export { MCP_CONTEXT_KEY, McpConfigError, McpServerSpec, RESERVED_MCP_TOOL_NAMES, mcpServersOf } from './mcp-servers';
export { MCP_CLASH_PREFIX, buildMcpRegistry, listMcpTools, mcpToolsFrom, resolveMcpTools, type McpListing, type McpToolTarget } from './mcp-tools';
