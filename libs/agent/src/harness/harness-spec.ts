import { z } from 'zod';
import { McpServerSpec } from '../mcp/mcp-servers';

/**
 * The external harness a turn runs on, as ingress puts it into `TurnRequested.context.harness`:
 * the OpenEnv environment's RFC 005 `HarnessConfig` for kinds `acp` and `command`. Declared here
 * (not imported from the OpenEnv protocol lib) because the worker reads it from any turn's
 * context, whichever protocol requested the turn.
 */
export const ExternalHarnessSpec = z.object({
  kind: z.enum(['acp', 'command']),
  name: z.string().min(1).max(100),
  command: z.array(z.string().min(1)).min(1),
  working_directory: z.string().default('/workspace'),
  env_vars: z.record(z.string(), z.string()).default({}),
  startup_timeout_s: z.number().positive().default(30),
  session_timeout_s: z.number().positive().default(600),
  model: z.string().nullable().default(null),
  /**
   * The MCP servers the harness gets at start (ACP `session/new`, the command provider's turn
   * line). Not from ingress: the worker fills it from the turn's `context.mcp_servers`, keeping
   * only servers the operator allows; any value in `context.harness` is replaced.
   */
  mcp_servers: z.array(McpServerSpec).optional(),
});
export type ExternalHarnessSpec = z.infer<typeof ExternalHarnessSpec>;

/** Where a turn's harness sits in its context: `context.harness`. */
export const HARNESS_CONTEXT_KEY = 'harness';

/**
 * The external harness a turn's context names, or null for the built-in agent (no key, or
 * `kind: builtin`). Throws on a malformed entry: a turn must not silently fall back to the
 * built-in agent when it asked for another.
 */
export function externalHarnessOf(context: Record<string, unknown>): ExternalHarnessSpec | null {
  const raw = context[HARNESS_CONTEXT_KEY];
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'object' && (raw as { kind?: unknown }).kind === 'builtin') return null;
  return ExternalHarnessSpec.parse(raw);
}

/**
 * Same process or not: a different command, environment or MCP server list needs a new process
 * (an ACP agent takes its MCP servers once, at `session/new`).
 */
export function sameHarness(a: ExternalHarnessSpec, b: ExternalHarnessSpec): boolean {
  const identity = (h: ExternalHarnessSpec) => JSON.stringify([h.kind, h.name, h.command, h.working_directory, h.env_vars, h.model, h.mcp_servers ?? []]);
  return identity(a) === identity(b);
}

/** The executor named on tool calls a harness made: `harness:acp:<name>`. */
export const harnessExecutor = (spec: Pick<ExternalHarnessSpec, 'kind' | 'name'>) => `harness:${spec.kind}:${spec.name}`;
