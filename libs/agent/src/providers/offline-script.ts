import type { ModelFinishReason, ModelMessage, ModelToolCall } from './types';
import { ProviderError, type ProviderErrorCode } from './types';
import { parseIntents } from './offline-intents';

/** Longest piece of the prompt, a file or a tool result the offline provider echoes back. */
export const ECHO_MAX = 2000;
/** Most words `long answer <N>` produces. */
export const LONG_ANSWER_MAX_WORDS = 5000;

/** What the offline provider will say for one request, before it is chunked and streamed. */
export interface OfflinePlan {
  reasoning: string;
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: ModelFinishReason;
  /** `slow` in the prompt: stream at 10× the delay (timeout tests). */
  slow: boolean;
}

const FAILURES: Record<string, ProviderErrorCode> = {
  auth: 'PROVIDER_AUTH',
  rate_limit: 'PROVIDER_RATE_LIMIT',
  down: 'PROVIDER_DOWN',
  internal: 'INTERNAL',
  timeout: 'TIMEOUT',
};

/**
 * The offline provider's whole behaviour, as a pure function of the messages: scripted from
 * the last user message, or, when tool results close the conversation, an answer built from
 * them. Throws the scripted {@link ProviderError} for `fail with <code>`.
 */
export function planOfflineReply(messages: readonly ModelMessage[]): OfflinePlan {
  const prompt = lastUserMessage(messages);
  const failure = /\bfail with\s+(auth|rate_limit|down|internal|timeout)\b/i.exec(prompt);
  if (failure) {
    const code = FAILURES[(failure[1] ?? '').toLowerCase()] ?? 'INTERNAL';
    throw new ProviderError(code, `offline provider: scripted ${code} failure`);
  }
  const slow = /\bslow\b/i.test(prompt);
  const thinking = /\bthink/i.test(prompt);
  const results = trailingToolResults(messages);
  if (results.length > 0) {
    const names = [...new Set(results.map((r) => r.name))].join(', ');
    return {
      reasoning: thinking ? `Thinking about: the results of ${names}.` : '',
      text: results.map((r) => answerFromResult(r, findCall(messages, r.toolCallId))).join('\n'),
      toolCalls: [],
      finishReason: 'stop',
      slow,
    };
  }
  return { ...replyToPrompt(prompt, messages), reasoning: thinking ? `Thinking about: ${clip(prompt)}` : '', slow };
}

function replyToPrompt(prompt: string, messages: readonly ModelMessage[]): Pick<OfflinePlan, 'text' | 'toolCalls' | 'finishReason'> {
  // `what are my system reminders`: says which reminders reached its system prompt, so a test can
  // tell that a reminder was (or was not) rendered into the request.
  if (/\bsystem reminders?\b/i.test(prompt)) return { text: remindersSeen(messages), toolCalls: [], finishReason: 'stop' };
  const intents = parseIntents(prompt);
  if (intents.length > 0) {
    const base = `call_${fnv1a(JSON.stringify(messages))}`;
    return {
      // Like a real model, it ends what it says before a tool call with a paragraph break, so the
      // answer that follows the tool results does not run into it.
      text: `${intents.map((i) => i.say).join(' ')}\n\n`,
      toolCalls: intents.map((i, n) => ({ toolCallId: `${base}_${n}`, name: i.name, input: i.input })),
      finishReason: 'tool_calls',
    };
  }
  const long = /\blong answer\s+(\d+)/i.exec(prompt);
  if (long) {
    const n = Math.max(1, Math.min(LONG_ANSWER_MAX_WORDS, Number(long[1])));
    return { text: Array.from({ length: n }, (_, i) => `word${i + 1}`).join(' '), toolCalls: [], finishReason: 'stop' };
  }
  const text =
    `You said: "${clip(prompt)}". I am the offline provider, a deterministic stand-in for a real model. ` +
    'Ask me to read, write or delete a file, list files, or calculate something.';
  return { text, toolCalls: [], finishReason: 'stop' };
}

function remindersSeen(messages: readonly ModelMessage[]): string {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const bodies = system
    .split(/\n\n(?=System reminder:\n)/)
    .filter((part) => part.startsWith('System reminder:\n'))
    .map((part) => clip(part.slice('System reminder:\n'.length)));
  return bodies.length === 0 ? 'I see no system reminders.' : `I see these system reminders: ${bodies.map((b) => `"${b}"`).join(', ')}.`;
}

type ToolResult = Extract<ModelMessage, { role: 'tool' }>;

function lastUserMessage(messages: readonly ModelMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'user') return m.content;
  }
  return '';
}

function trailingToolResults(messages: readonly ModelMessage[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'tool') break;
    results.unshift(m);
  }
  return results;
}

function findCall(messages: readonly ModelMessage[], toolCallId: string): ModelToolCall | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const call = m?.role === 'assistant' ? m.toolCalls?.find((c) => c.toolCallId === toolCallId) : undefined;
    if (call) return call;
  }
  return undefined;
}

function answerFromResult(result: ToolResult, call: ModelToolCall | undefined): string {
  const input = (typeof call?.input === 'object' && call.input !== null ? call.input : {}) as Record<string, unknown>;
  const path = typeof input['path'] === 'string' ? input['path'] : 'the file';
  const content = clip(result.content);
  if (result.content.startsWith('DENIED:')) {
    return `The ${result.name} call was denied, so I did not ${deniedAction(result.name, input, path)}.`;
  }
  // The runner records a tool that threw as `ERROR: <message>`.
  if (result.content.startsWith('ERROR:')) {
    return `The ${result.name} call failed: ${clip(result.content.slice('ERROR:'.length).trim())}`;
  }
  switch (result.name) {
    case 'read_file':
      return content.startsWith('no such file:') ? `I could not read ${path}: ${content}` : `The file ${path} says: ${content}`;
    case 'write_file':
    case 'delete_file':
      return `Done: ${content}.`;
    case 'list_files':
      return `The workspace has these files:\n${content}`;
    case 'calculator':
      return `The result is ${content}.`;
    default:
      return `The ${result.name} call returned: ${content}`;
  }
}

function deniedAction(name: string, input: Record<string, unknown>, path: string): string {
  switch (name) {
    case 'read_file':
      return `read ${path}`;
    case 'write_file':
      return `write ${path}`;
    case 'delete_file':
      return `delete ${path}`;
    case 'list_files':
      return 'list the files';
    case 'calculator':
      return `calculate ${String(input['expression'] ?? 'it')}`;
    default:
      return `run ${name}`;
  }
}

/** Bounds anything echoed from the request, so an answer never grows with its input. */
export function clip(s: string, max = ECHO_MAX): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

// Tool call ids must be stable for one request (replay, retries) yet differ between turns of
// a session; hashing the conversation gives both without a clock or randomness.
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
