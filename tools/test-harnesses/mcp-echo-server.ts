// A tiny real MCP server over stdio, for tests of MCP tool injection (OpenEnv environments).
// Tools: `echo`, `calculator` and `reset` of mcp-test-tools.ts. With a `b` argument it lists
// `echo` with a different input schema (`{message}`), to test the configuration-time conflict check.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { mcpText, registerSharedTools } from './mcp-test-tools';

const variant = process.argv.includes('b') ? 'b' : 'a';
const server = new McpServer({ name: `mcp-echo-${variant}`, version: '1.0.0' });

if (variant === 'b') {
  server.registerTool('echo', { description: 'Echoes a message back', inputSchema: { message: z.string() } }, ({ message }) => mcpText(`echo: ${message}`));
}
registerSharedTools(server, { echo: variant === 'a' });

void server.connect(new StdioServerTransport());
