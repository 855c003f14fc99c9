import { conversationTurns, foldSessionView, type DeliveredInput, type HubEvent, type Reminder, type SessionView, type TurnProgress } from '@hub/domain';
import type { ModelMessage } from '../providers/types';

export const SYSTEM_PROMPT =
  'You are the Harness Hub agent. Answer the user; use the tools offered when they help. ' +
  "Writing or deleting files needs the user's approval; if a call is denied, say so and go on.";

/** Text the model sees for a tool call that did not run. The offline model keys on the prefix. */
export const deniedToolOutput = (reason: string) => `DENIED: ${reason}`;

/** How a reminder is rendered for every provider (Harn's fallback: system prompt text). */
export const reminderText = (body: string) => `System reminder:\n${body}`;

/**
 * The conversation as the model sees it, rebuilt from the log: the system prompt with the
 * reminders in force, every started turn's prompt, each completed model call's text and tool
 * calls, each recorded tool result, and each message steered into a turn at the step boundary
 * where it was delivered. Deterministic, so a retried step sends the provider exactly what the
 * first attempt sent.
 */
export function buildModelMessages(source: readonly HubEvent[] | SessionView): ModelMessage[] {
  // A view (snapshot + tail) holds every started turn already folded: no pass over the stream.
  const view = Array.isArray(source) ? foldSessionView(source as readonly HubEvent[]) : (source as SessionView);
  const turns = conversationTurns(view);
  const messages: ModelMessage[] = [{ role: 'system', content: systemPrompt(view, turns) }];
  for (const p of turns) {
    if (!p.request) continue;
    messages.push({ role: 'user', content: p.request.prompt });
    const users = p.delivered.filter((d) => d.kind === 'user');
    const before = (step: number) => users.filter((d) => d.beforeStep <= step);
    let shown = 0;
    const pushUsers = (upTo: DeliveredInput[]) => {
      for (const d of upTo.slice(shown)) messages.push({ role: 'user', content: d.text });
      shown = Math.max(shown, upTo.length);
    };
    for (const call of p.calls) {
      pushUsers(before(call.step));
      if (!call.completed) continue;
      pushCall(messages, p, call.completed);
    }
    pushUsers(users);
  }
  return messages;
}

function pushCall(messages: ModelMessage[], p: TurnProgress, completed: NonNullable<TurnProgress['calls'][number]['completed']>): void {
  const toolCalls = completed.toolCalls;
  messages.push({ role: 'assistant', content: completed.text, ...(toolCalls.length ? { toolCalls } : {}) });
  for (const tc of toolCalls) {
    const done = p.tools.find((t) => t.call.toolCallId === tc.toolCallId)?.completed;
    // A tool call left without a result (cancelled turn) still needs an answer for providers
    // that require one per call.
    const content = done ? done.output : deniedToolOutput('the turn ended before this call ran');
    messages.push({ role: 'tool', toolCallId: tc.toolCallId, name: tc.name, content });
  }
}

/**
 * The system prompt plus every rendered reminder still in force for the latest turn: a reminder
 * counts down one per turn that ends after the one that rendered it (`ttlTurns`; none: for
 * good), and a newer rendered reminder with the same dedupe key replaces it.
 */
function systemPrompt(view: SessionView, turns: readonly TurnProgress[]): string {
  const queued = new Map<string, Reminder>();
  if (view.session.status !== 'new') for (const [id, r] of view.session.reminders) queued.set(id, r.reminder);
  const current = turns.length - 1;
  const inForce: Reminder[] = [];
  turns.forEach((p, index) => {
    for (const d of p.delivered) {
      const r = d.kind === 'reminder' ? queued.get(d.id) : undefined;
      if (!r || (r.ttlTurns !== null && current - index >= r.ttlTurns)) continue;
      const same = r.dedupeKey === null ? -1 : inForce.findIndex((x) => x.dedupeKey === r.dedupeKey);
      if (same >= 0) inForce.splice(same, 1);
      inForce.push(r);
    }
  });
  return [SYSTEM_PROMPT, ...inForce.map((r) => reminderText(r.body))].join('\n\n');
}
