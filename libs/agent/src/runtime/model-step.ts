import type { HubEvent, RequestedToolCall, Usage } from '@hub/domain';
import { DomainError, toolCallIdFor } from '@hub/domain';
import type { ModelFinishReason, ModelProvider } from '../providers/types';
import type { ToolSpec } from '../providers/types';
import type { TurnAttempt } from './context';
import { buildModelMessages } from './transcript';

export interface ModelStepPlan {
  step: number;
  callId: string;
  started: boolean;
  recordedText: string;
  recordedThought: string;
}

/** How often streamed text is written to the log: by size, or by age of the oldest unwritten char. */
export interface FlushPolicy {
  maxChars: number;
  maxDelayMs: number;
}

/**
 * Skips what a previous attempt already recorded. A retried model call is asked again (the
 * provider has no memory of the first attempt); the part of its answer that the log holds is
 * not written again, so no stream sees it twice.
 */
class Resumable {
  private seen = 0;
  constructor(private readonly recorded: string) {}

  /** Returns the part of `chunk` that is new, or throws when the answer diverged from the log. */
  take(chunk: string): string {
    const start = this.seen;
    this.seen += chunk.length;
    if (start >= this.recorded.length) return chunk;
    const overlap = this.recorded.slice(start, start + chunk.length);
    if (!chunk.startsWith(overlap)) throw new DomainError('INTERNAL', 'model output diverged from the recorded prefix on retry');
    return chunk.slice(overlap.length);
  }
}

/** One ReAct model call: stream it into the log, then record its outcome once. */
export async function runModelStep(
  attempt: TurnAttempt,
  plan: ModelStepPlan,
  deps: { provider: ModelProvider; tools: ToolSpec[]; signal: AbortSignal; flush: FlushPolicy; now: () => number },
): Promise<void> {
  const { turnId } = attempt;
  const messageId = `${turnId}:m`;
  if (!plan.started) {
    await attempt.append([
      {
        type: 'ModelCallStarted',
        data: {
          turnId, callId: plan.callId, step: plan.step, provider: deps.provider.name, model: deps.provider.model,
          messageCount: buildModelMessages(attempt.events).length, toolNames: deps.tools.map((t) => t.name),
        },
      },
    ]);
  }
  const messages = buildModelMessages(attempt.events);
  const text = new Resumable(plan.recordedText);
  const thought = new Resumable(plan.recordedThought);
  let fullText = '';
  let textOffset = plan.recordedText.length;
  let thoughtOffset = plan.recordedThought.length;
  let pending: HubEvent[] = [];
  let pendingChars = 0;
  let oldest = 0;
  const flush = async () => {
    if (pending.length) await attempt.append(pending);
    pending = [];
    pendingChars = 0;
  };
  const toolCalls: RequestedToolCall[] = [];
  let finish: { finishReason: ModelFinishReason; usage: Usage } | null = null;

  for await (const part of deps.provider.stream({ messages, tools: deps.tools, signal: deps.signal })) {
    if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
      const isText = part.type === 'text-delta';
      if (isText) fullText += part.text;
      const fresh = (isText ? text : thought).take(part.text);
      if (!fresh) continue;
      const offset = isText ? textOffset : thoughtOffset;
      if (isText) textOffset += fresh.length;
      else thoughtOffset += fresh.length;
      pending.push({ type: isText ? 'TextDelta' : 'ThoughtDelta', data: { turnId, messageId, callId: plan.callId, offset, text: fresh } });
      if (pendingChars === 0) oldest = deps.now();
      pendingChars += fresh.length;
      if (pendingChars >= deps.flush.maxChars || deps.now() - oldest >= deps.flush.maxDelayMs) await flush();
    } else if (part.type === 'tool-call') {
      toolCalls.push({ toolCallId: toolCallIdFor(turnId, plan.step, toolCalls.length), name: part.name, input: part.input });
    } else {
      finish = { finishReason: part.finishReason, usage: part.usage };
    }
  }
  if (!finish) throw new Error(`model stream of ${plan.callId} ended without a finish part`);
  pending.push({
    type: 'ModelCallCompleted',
    data: { turnId, callId: plan.callId, step: plan.step, text: fullText, toolCalls, finishReason: finish.finishReason, usage: finish.usage },
  });
  await flush();
}
