/**
 * A message as the hub's agent sends it to a model: structurally `@hub/agent`'s `ModelMessage`,
 * declared here because a protocol library does not depend on the agent.
 */
export type LlmInputMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: readonly { toolCallId: string; name: string; input: unknown }[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/**
 * The messages a model call was sent, by its call id, or undefined when they are not known. The
 * caller rebuilds them from the log (the worker builds them from it the same way, deterministically).
 */
export type LlmRequestMessages = (callId: string) => readonly LlmInputMessage[] | undefined;

/** A chat message in the OpenAI chat shape harnesses and trainers read (`role`, `content`, `tool_calls`). */
export type LlmChatMessage = Record<string, unknown>;

/** RFC 005 `llm_request` `messages`: the request as the model saw it, in the chat shape. */
export function chatMessages(messages: readonly LlmInputMessage[]): LlmChatMessage[] {
  return messages.map((m) => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        const toolCalls = calls.map((c) => ({ id: c.toolCallId, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } }));
        return { role: 'assistant', content: m.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
      }
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, name: m.name, content: m.content };
    }
  });
}
