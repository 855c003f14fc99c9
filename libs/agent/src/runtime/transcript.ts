import { foldTurn, type HubEvent } from '@hub/domain';
import type { ModelMessage } from '../providers/types';

export const SYSTEM_PROMPT =
  'You are the Harness Hub agent. Answer the user; use the tools offered when they help. ' +
  'Writing or deleting files needs the user\'s approval; if a call is denied, say so and go on.';

/** Text the model sees for a tool call that did not run. The offline model keys on the prefix. */
export const deniedToolOutput = (reason: string) => `DENIED: ${reason}`;

/**
 * The conversation as the model sees it, rebuilt from the log: every started turn's prompt,
 * each completed model call's text and tool calls, and each recorded tool result. Deterministic,
 * so a retried step sends the provider exactly what the first attempt sent.
 */
export function buildModelMessages(events: readonly HubEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }];
  const started = events.filter((e) => e.type === 'TurnStarted').map((e) => (e.data as { turnId: string }).turnId);
  for (const turnId of new Set(started)) {
    const p = foldTurn(events, turnId);
    if (!p.request) continue;
    messages.push({ role: 'user', content: p.request.prompt });
    for (const call of p.calls) {
      if (!call.completed) continue;
      const toolCalls = call.completed.toolCalls;
      messages.push({ role: 'assistant', content: call.completed.text, ...(toolCalls.length ? { toolCalls } : {}) });
      for (const tc of toolCalls) {
        const done = p.tools.find((t) => t.call.toolCallId === tc.toolCallId)?.completed;
        // A tool call left without a result (cancelled turn) still needs an answer for providers
        // that require one per call.
        const content = done ? done.output : deniedToolOutput('the turn ended before this call ran');
        messages.push({ role: 'tool', toolCallId: tc.toolCallId, name: tc.name, content });
      }
    }
  }
  return messages;
}
