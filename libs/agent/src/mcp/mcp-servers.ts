import { z } from 'zod';

/**
 * An MCP server whose tools are injected into a turn: a command over stdio, or a streamable
 * HTTP endpoint. The same shape as an OpenEnv environment's `mcp_servers` entries, so ingress
 * can put the configured list into `TurnRequested.context` unchanged.
 */
export const McpServerSpec = z.discriminatedUnion('transport', [
  z.object({ name: z.string().min(1), transport: z.literal('stdio'), command: z.array(z.string()).min(1), env: z.record(z.string(), z.string()).default({}) }),
  z.object({ name: z.string().min(1), transport: z.literal('http'), url: z.string().url() }),
]);
export type McpServerSpec = z.infer<typeof McpServerSpec>;

/** Where a turn's MCP servers sit in its context: `context.mcp_servers`. */
export const MCP_CONTEXT_KEY = 'mcp_servers';

/** The MCP servers a turn's context names; none when absent. Throws on a malformed list. */
export function mcpServersOf(context: Record<string, unknown>): McpServerSpec[] {
  const raw = context[MCP_CONTEXT_KEY];
  return raw === undefined ? [] : z.array(McpServerSpec).parse(raw);
}

/** Names the orchestration API owns (RFC 005 "MCP tool scoping"): never offered as tools. */
export const RESERVED_MCP_TOOL_NAMES: ReadonlySet<string> = new Set(['reset', 'step', 'state', 'close']);

/** A refused MCP configuration: the message names the servers and the tool at fault. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}
