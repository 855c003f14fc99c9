import type { Usage } from '@hub/domain';
import type { ExternalHarnessSpec } from './harness-spec';

// The contract between the hub and one external harness process (RFC 005 `HarnessAdapter`).
// An adapter speaks the harness's native protocol and reports what the harness does as
// `HarnessOutput`; the turn runner maps that onto the canonical events.

/** A piece of the harness's native output during a turn, already decoded. */
export type HarnessOutput =
  | { type: 'text'; text: string }
  | { type: 'thought'; text: string }
  /** A tool call the harness reports (it runs its own tools). `id` is the harness's id. */
  | { type: 'tool_call'; id: string; name: string; input: unknown; status?: HarnessToolStatus; output?: string }
  | { type: 'tool_update'; id: string; name?: string; input?: unknown; status?: HarnessToolStatus; message?: string; output?: string };

export type HarnessToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** A harness asks whether it may run a tool; the hub's approval flow answers. */
export interface HarnessPermissionRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
  reason: string;
}

export type HarnessPermissionAnswer = 'approved' | 'denied' | 'cancelled';

/** Where an adapter sends what the harness does during one turn. */
export interface HarnessSink {
  /** Called in the order the harness produced it; must not block the adapter (it queues). */
  emit(out: HarnessOutput): void;
  /** Records the request and waits for someone to answer it (any protocol, or the deadline). */
  askPermission(req: HarnessPermissionRequest): Promise<HarnessPermissionAnswer>;
}

/** One conversational turn (RFC 005 `send_message`). */
export interface HarnessTurn {
  sessionId: string;
  /** 1-based number of the turn in the session. */
  turnNumber: number;
  message: string;
  /**
   * Earlier turns the process has not seen (it is a fresh process for an older session: another
   * worker ran them, or the old process crashed or was reaped). Empty when it has them already.
   */
  history: { role: 'user' | 'assistant'; content: string }[];
}

/** How a turn ended on the harness side. `done`: the harness considers the task complete. */
export interface HarnessTurnResult {
  stopReason: 'end_turn' | 'cancelled' | 'max_tokens' | 'refusal' | 'other';
  done: boolean;
  /** Tokens the harness reports having used for the turn, when it says (ACP has no such field). */
  usage?: Usage;
}

export interface HarnessAdapter {
  readonly spec: ExternalHarnessSpec;
  /** Spawns the process and does the handshake, within `startup_timeout_s`. */
  start(): Promise<void>;
  /**
   * Sends one turn and streams the native output to `sink` (RFC 005 `send_message_streaming`).
   * Rejects with a `HarnessError` when the process crashes, breaks the protocol or is stopped.
   */
  sendMessageStreaming(turn: HarnessTurn, sink: HarnessSink): Promise<HarnessTurnResult>;
  /** Asks the harness to stop the running turn (ACP `session/cancel`). */
  cancel(): Promise<void>;
  /** Stops the process and waits until it is gone (SIGKILL after a grace). */
  stop(): Promise<void>;
  isAlive(): boolean;
  readonly pid: number | undefined;
  /** Resolves when the process has ended, however it ended. */
  readonly exited: Promise<unknown>;
  /**
   * MCP servers of `spec.mcp_servers` the harness was not given, and why (after `start`): an ACP
   * agent that does not declare `mcpCapabilities.http` gets no http server. The runner reports them.
   */
  readonly mcpLeftOut?: readonly { name: string; reason: string }[];
  /**
   * Whether the running turn can take a user message mid-turn (after `start`): an ACP agent that
   * lists Harn's `session/inject` among its `_meta.harn.extensionMethods`. Without it a steer
   * waits for the turn's end and runs as the next turn.
   */
  readonly takesSteer?: boolean;
  /** Delivers a user message into the running turn (Harn `session/inject`, mode `steer`). */
  steer?(text: string): Promise<void>;
}

/** What every adapter needs besides its spec. */
export interface AdapterOptions {
  /** The environment every harness process starts from (PATH, HOME, ...), before `env_vars`. */
  baseEnv: Record<string, string>;
  /** SIGTERM → SIGKILL grace when stopping. */
  killGraceMs?: number;
}

/** Waits for `p`, or fails with `onTimeout()` after `ms`. */
export async function within<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
