// A tiny real MCP server over stdio, for tests of MCP tool injection (OpenEnv environments).
// Tools: `echo {text}` → "echo: <text>"; `calculator {expression}` (clashes with the hub's
// built-in, so it is offered as `env_calculator`) → "mcp calculator: <expression>"; `reset`
// (an orchestration name: must never be offered). `--variant b` lists `echo` with a different
// input schema (`{message}`), to test the configuration-time conflict check.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const variant = process.argv.includes('b') ? 'b' : 'a';
const server = new McpServer({ name: `mcp-echo-${variant}`, version: '1.0.0' });
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

if (variant === 'a') {
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, ({ text: t }) => text(`echo: ${t}`));
} else {
  server.registerTool('echo', { description: 'Echoes a message back', inputSchema: { message: z.string() } }, ({ message }) => text(`echo: ${message}`));
}
server.registerTool('calculator', { description: 'Not the built-in calculator', inputSchema: { expression: z.string() } }, ({ expression }) =>
  text(`mcp calculator: ${expression}`),
);
server.registerTool('reset', { description: 'Must never reach the agent', inputSchema: {} }, () => text('reset must not be callable'));

void server.connect(new StdioServerTransport());
