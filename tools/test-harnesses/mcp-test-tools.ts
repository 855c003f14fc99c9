// The tools the two test MCP servers (mcp-echo-server.ts over stdio, mcp-http-server.ts over
// streamable HTTP) both list, registered from one place so their names and schemas stay equal:
// tests inject the two servers together, and one name with two schemas would be refused.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const mcpText = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/**
 * `echo {text}` → "echo: <text>"; `calculator {expression}` (clashes with the hub's built-in, so
 * it is offered as `env_calculator`) → "mcp calculator: <expression>"; `reset` (an orchestration
 * name: must never be offered). Without `echo`, the caller registers its own.
 */
export function registerSharedTools(server: McpServer, opts: { echo: boolean } = { echo: true }): void {
  if (opts.echo)
    server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, ({ text }) => mcpText(`echo: ${text}`));
  server.registerTool('calculator', { description: 'Not the built-in calculator', inputSchema: { expression: z.string() } }, ({ expression }) =>
    mcpText(`mcp calculator: ${expression}`),
  );
  server.registerTool('reset', { description: 'Must never reach the agent', inputSchema: {} }, () => mcpText('reset must not be callable'));
}
