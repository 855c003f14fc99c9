import { DomainError } from '@hub/domain';

/**
 * One message of the conversation sent to a model. The agent loop builds these from the
 * session's log; providers translate them to their wire format.
 */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** A tool call the model asked for (also how an assistant message recalls its calls). */
export interface ModelToolCall {
  toolCallId: string;
  name: string;
  input: unknown;
}

/** What the model is told about a tool. `inputSchema` is a JSON Schema of `type: 'object'`. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One model call: the conversation so far, the tools on offer, and the turn's abort signal. */
export interface ModelRequest {
  messages: ModelMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
}

export type ModelFinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A streamed piece of a model's answer. A well-formed stream ends with exactly one `finish`. */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; toolCallId: string; name: string; input: unknown }
  | { type: 'finish'; finishReason: ModelFinishReason; usage: ModelUsage };

/**
 * A model behind one interface. `stream` makes one model call (one ReAct step); it never runs
 * tools itself. Failures are thrown as {@link ProviderError}; an abort rethrows the abort reason.
 */
export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
}

export type ProviderErrorCode = 'PROVIDER_AUTH' | 'PROVIDER_RATE_LIMIT' | 'PROVIDER_DOWN' | 'TIMEOUT' | 'INTERNAL';

// Whether waiting and calling again can help. Bad credentials and bugs stay bad; a busy or
// unreachable provider may recover, which the hub's job retries (not the SDK's) exploit.
const RETRYABLE: Record<ProviderErrorCode, boolean> = {
  PROVIDER_AUTH: false,
  PROVIDER_RATE_LIMIT: true,
  PROVIDER_DOWN: true,
  TIMEOUT: true,
  INTERNAL: false,
};

/** Whether a provider failure with this code is worth retrying (see {@link ProviderError}). */
export function isRetryableProviderCode(code: ProviderErrorCode): boolean {
  return RETRYABLE[code];
}

/** A model call that failed. `retryable` defaults from the code; `status` is the HTTP status. */
export class ProviderError extends DomainError<ProviderErrorCode> {
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(code: ProviderErrorCode, message: string, opts: { retryable?: boolean; status?: number; details?: Record<string, unknown> } = {}) {
    super(code, message, { ...opts.details, ...(opts.status === undefined ? {} : { status: opts.status }) });
    this.retryable = opts.retryable ?? isRetryableProviderCode(code);
    this.status = opts.status;
  }
}

/** True for the error an aborted signal produces (DOMException `AbortError`, or the abort reason). */
export function isAbortError(e: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && e === signal.reason) return true;
  // By name, not `instanceof`: errors from fetch may come from another realm (e.g. Jest's vm).
  const name = typeof e === 'object' && e !== null && 'name' in e ? e.name : undefined;
  return name === 'AbortError' || name === 'TimeoutError';
}
