import type { RiskTier, ToolPolicyDecision } from '@hub/domain';
import type { ToolSpec } from '../providers/types';

/** What a tool sees of the turn it runs in. */
export interface ToolContext {
  tenantId: string;
  sessionId: string;
  signal: AbortSignal;
  /**
   * The session's virtual workspace as of this call (see `workspaceFromEvents`). Tools read it
   * and never write it: a write takes effect when its completion is recorded in the log.
   */
  files: ReadonlyMap<string, string>;
}

/** A tool the agent may call: its spec for the model, its default policy and how to run it. */
export interface Tool extends ToolSpec {
  policy: ToolPolicyDecision;
  riskTier: RiskTier;
  /** Where the tool runs: `builtin` for the hub's own tools; MCP servers name themselves. */
  executor: string;
  /** Returns the result text the model sees. Throws {@link ToolInputError} for bad input. */
  execute(input: unknown, ctx: ToolContext): Promise<string>;
}

/** The model gave a tool input it cannot run with. The message is meant for the model. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
  constructor(
    readonly toolName: string,
    message: string,
    readonly issues: string[] = [],
  ) {
    super(message);
  }
}
