import { z } from 'zod';

// OpenEnv's server API as meta-pytorch/OpenEnv @ 685de41 serves it (src/openenv/core/env_server/
// types.py; fixtures in shared/fixtures/openenv) plus the harness types of RFC 005
// (specs/openenv-rfc-005-agentic-harness.md, status "In Review", not implemented upstream).

/** `POST /reset` body. Extra keys are allowed upstream (custom reset parameters). */
export const ResetRequest = z
  .object({
    seed: z.number().int().nonnegative().nullable().optional(),
    episode_id: z.string().min(1).max(255).nullable().optional(),
  })
  .catchall(z.unknown());
export type ResetRequest = z.infer<typeof ResetRequest>;

/** `POST /step` body: `action` is the environment's action; extra keys are allowed upstream. */
export const StepRequest = z
  .object({
    action: z.record(z.string(), z.unknown()),
    timeout_s: z.number().positive().nullable().optional(),
    request_id: z.string().max(255).nullable().optional(),
  })
  .catchall(z.unknown());
export type StepRequest = z.infer<typeof StepRequest>;

/** The action of a harness environment (RFC 005 `HarnessAction`): one user message, one turn. */
export const HarnessAction = z
  .object({
    message: z.string().min(1),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type HarnessAction = z.infer<typeof HarnessAction>;

/** `WS /ws` client frames. `data` of `step` is the action itself. */
export const WsClientFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reset'), data: z.record(z.string(), z.unknown()).default({}) }),
  z.object({ type: z.literal('step'), data: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('state') }),
  z.object({ type: z.literal('close') }),
  z.object({ type: z.literal('mcp'), data: z.record(z.string(), z.unknown()) }),
]);
export type WsClientFrame = z.infer<typeof WsClientFrame>;

/** OpenEnv's `WSErrorCode`. */
export const WsErrorCode = z.enum([
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'FACTORY_ERROR',
  'SESSION_ERROR',
]);
export type WsErrorCode = z.infer<typeof WsErrorCode>;

/** RFC 005 `HarnessEventType`. */
export const HarnessEventType = z.enum(['llm_request', 'llm_response', 'llm_chunk', 'tool_call', 'tool_result', 'text_output', 'error', 'turn_complete']);
export type HarnessEventType = z.infer<typeof HarnessEventType>;

/**
 * RFC 005 `HarnessEvent` plus `cursor`: the global position of the hub event it was encoded
 * from, so a watcher can resume (DESIGN invariant 4). `timestamp` is Unix seconds.
 */
export const HarnessEvent = z.object({
  type: HarnessEventType,
  timestamp: z.number(),
  data: z.record(z.string(), z.unknown()),
  cursor: z.number().int().nonnegative(),
});
export type HarnessEvent = z.infer<typeof HarnessEvent>;

/** RFC 005 `HarnessTransport`. */
export const HarnessTransport = z.enum(['stdio', 'http', 'mcp']);

/** RFC 005 `HarnessConfig`, plus `kind`: which adapter runs it (`builtin` needs no command). */
export const HarnessConfig = z.object({
  name: z.string().min(1).max(100),
  kind: z.enum(['builtin', 'acp', 'command']).default('builtin'),
  command: z.array(z.string().min(1)).default([]),
  working_directory: z.string().default('/workspace'),
  env_vars: z.record(z.string(), z.string()).default({}),
  transport: HarnessTransport.default('stdio'),
  mcp_config_path: z.string().nullable().default(null),
  startup_timeout_s: z.number().positive().default(30),
  session_timeout_s: z.number().positive().default(600),
  model: z.string().nullable().default(null),
  api_key_env_var: z.string().nullable().default(null),
});
export type HarnessConfig = z.infer<typeof HarnessConfig>;

/** An MCP server whose tools are injected into the harness (stdio or streamable HTTP). */
export const McpServerConfig = z.discriminatedUnion('transport', [
  z.object({ name: z.string().min(1), transport: z.literal('stdio'), command: z.array(z.string()).min(1), env: z.record(z.string(), z.string()).default({}) }),
  z.object({ name: z.string().min(1), transport: z.literal('http'), url: z.string().url() }),
]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/**
 * A rubric: its kind and parameters, e.g. `{"kind": "expected_answer", "expected": "42"}` or
 * `{"kind": "tool_usage", "required": ["read_file"]}`. Kinds are checked where rubrics live
 * (libs/agent `buildRubric`), so a kind added there needs no change here.
 */
export const RubricConfig = z.object({ kind: z.string().min(1).max(100) }).catchall(z.unknown());
export type RubricConfig = z.infer<typeof RubricConfig>;

export const ENV_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** An environment of a tenant, served under `/v1/openenv/<name>`. */
export const EnvironmentConfig = z.object({
  description: z.string().max(2000).default(''),
  harness: HarnessConfig.prefault({ name: 'hub' }),
  mcp_servers: z.array(McpServerConfig).default([]),
  rubric: RubricConfig.nullable().default(null),
  max_turns: z.number().int().positive().max(1000).default(20),
  /** The harness signals completion when its answer contains this text (RFC 005 `done`). */
  done_marker: z.string().min(1).nullable().default(null),
});
export type EnvironmentConfig = z.infer<typeof EnvironmentConfig>;
