import {
  APICallError,
  LoadAPIKeyError,
  RetryError,
  jsonSchema,
  streamText,
  tool,
  type FinishReason,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage as AiMessage,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import {
  ProviderError,
  isAbortError,
  type ModelFinishReason,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelStreamPart,
  type ModelUsage,
  type ToolSpec,
} from './types';

/**
 * A real model through the AI SDK. One `stream` call is one model step: tools are declared
 * without `execute`, so the SDK hands tool calls back and the hub runs its own (durable) loop.
 * The SDK's retries are off; the hub's job retries decide, from {@link ProviderError.retryable}.
 */
export class AiSdkProvider implements ModelProvider {
  constructor(
    readonly name: string,
    readonly model: string,
    private readonly languageModel: LanguageModel,
  ) {}

  async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    req.signal.throwIfAborted();
    const { system, messages } = toAiMessages(req.messages);
    const result = streamText({
      model: this.languageModel,
      system,
      messages,
      allowSystemInMessages: true,
      tools: toAiTools(req.tools),
      abortSignal: req.signal,
      maxRetries: 0,
      // Errors arrive as `error` parts and are thrown below; the default handler would only log.
      onError: () => undefined,
    });
    try {
      for await (const part of result.fullStream) {
        // The SDK may have buffered parts past an abort; stop at the first one after it.
        req.signal.throwIfAborted();
        const mapped = toStreamPart(part, req.signal);
        if (mapped) yield mapped;
      }
    } catch (e: unknown) {
      throw toProviderError(e, req.signal);
    }
  }
}

/** One SDK stream part as ours; `undefined` for bookkeeping parts. Throws on `error`/`abort`. */
function toStreamPart(part: TextStreamPart<ToolSet>, signal: AbortSignal): ModelStreamPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.text === '' ? undefined : { type: 'text-delta', text: part.text };
    case 'reasoning-delta':
      return part.text === '' ? undefined : { type: 'reasoning-delta', text: part.text };
    case 'tool-call':
      return { type: 'tool-call', toolCallId: part.toolCallId, name: part.toolName, input: part.input };
    case 'finish':
      return { type: 'finish', finishReason: mapFinishReason(part.finishReason), usage: mapUsage(part.totalUsage) };
    case 'error':
      throw part.error;
    case 'abort':
      signal.throwIfAborted();
      throw new DOMException('the model call was aborted', 'AbortError');
    default:
      return undefined;
  }
}

/**
 * Our messages in the AI SDK's shape. Leading system messages become `system`; a tool result
 * is a `tool-result` part with text output, and consecutive results share one tool message,
 * which is how providers expect parallel calls to be answered.
 */
export function toAiMessages(messages: readonly ModelMessage[]): { system: string | undefined; messages: AiMessage[] } {
  let start = 0;
  const system: string[] = [];
  while (messages[start]?.role === 'system') system.push(messages[start++]?.content ?? '');
  const out: AiMessage[] = [];
  for (const m of messages.slice(start)) {
    if (m.role === 'tool') {
      const part = { type: 'tool-result' as const, toolCallId: m.toolCallId, toolName: m.name, output: { type: 'text' as const, value: m.content } };
      const prev = out[out.length - 1];
      if (prev?.role === 'tool') prev.content.push(part);
      else out.push({ role: 'tool', content: [part] });
    } else if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const calls = m.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.toolCallId, toolName: c.name, input: c.input }));
      out.push({ role: 'assistant', content: [...(m.content === '' ? [] : [{ type: 'text' as const, text: m.content }]), ...calls] });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

/** Our tool specs as AI SDK tools: JSON Schema as given, and no `execute`. */
export function toAiTools(specs: readonly ToolSpec[]): ToolSet | undefined {
  if (specs.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const spec of specs) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema) });
  }
  return tools;
}

function mapFinishReason(reason: FinishReason): ModelFinishReason {
  switch (reason) {
    case 'tool-calls':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    // `interrupted` (AI SDK 7): the provider's stream ended without a reason of its own.
    case 'stop':
    case 'error':
    case 'interrupted':
    case 'other':
      return 'stop';
  }
}

function mapUsage(usage: LanguageModelUsage): ModelUsage {
  const promptTokens = usage.inputTokens ?? 0;
  const completionTokens = usage.outputTokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage.totalTokens ?? promptTokens + completionTokens };
}

/**
 * Classifies an SDK failure. HTTP status decides: 401/403 bad credentials, 408 timeout, 429
 * rate limit, 5xx provider down; no status means no connection (refused, reset, DNS), also
 * "down". Other 4xx are our request's fault and will not improve on retry. An abort is
 * returned as is, so callers see the abort, not a provider failure.
 */
export function toProviderError(e: unknown, signal?: AbortSignal): unknown {
  if (e instanceof ProviderError) return e;
  if (signal?.aborted || isAbortError(e, signal)) return signal?.aborted ? signal.reason : e;
  if (RetryError.isInstance(e)) return toProviderError(e.lastError, signal);
  if (LoadAPIKeyError.isInstance(e)) return new ProviderError('PROVIDER_AUTH', e.message, { details: { cause: e.name } });
  if (APICallError.isInstance(e)) {
    const status = e.statusCode;
    const opts = { status, details: { url: e.url } };
    if (status === undefined) return new ProviderError('PROVIDER_DOWN', `cannot reach the model provider: ${e.message}`, opts);
    if (status === 401 || status === 403) return new ProviderError('PROVIDER_AUTH', `provider refused the credentials (${status})`, opts);
    if (status === 408) return new ProviderError('TIMEOUT', `provider timed out (${status})`, opts);
    if (status === 429) return new ProviderError('PROVIDER_RATE_LIMIT', `provider rate limit (${status})`, opts);
    if (status >= 500) return new ProviderError('PROVIDER_DOWN', `provider failed (${status}): ${e.message}`, opts);
    return new ProviderError('INTERNAL', `provider rejected the request (${status}): ${e.message}`, opts);
  }
  const connection = connectionFailure(e);
  if (connection) return new ProviderError(connection.code, `cannot reach the model provider: ${connection.what}`);
  return new ProviderError('INTERNAL', `model call failed: ${field(e, 'message') ?? String(e)}`, { details: { cause: field(e, 'name') } });
}

const TIMEOUT_CAUSES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

// fetch's own failure ("TypeError: fetch failed", cause ECONNREFUSED...). The SDK wraps it in
// an APICallError only when `instanceof TypeError` holds, which fails across realms, so it is
// recognised here by shape as well.
function connectionFailure(e: unknown): { code: 'PROVIDER_DOWN' | 'TIMEOUT'; what: string } | undefined {
  if (field(e, 'name') !== 'TypeError' || field(e, 'message') !== 'fetch failed') return undefined;
  const cause = typeof e === 'object' && e !== null && 'cause' in e ? e.cause : undefined;
  const code = field(cause, 'code') ?? field(cause, 'message') ?? 'connection failed';
  return { code: TIMEOUT_CAUSES.has(code) ? 'TIMEOUT' : 'PROVIDER_DOWN', what: code };
}

function field(e: unknown, key: 'name' | 'message' | 'code'): string | undefined {
  if (typeof e !== 'object' || e === null || !(key in e)) return undefined;
  const value: unknown = (e as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}
