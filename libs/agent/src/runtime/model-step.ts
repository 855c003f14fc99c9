import type { HubEvent, RequestedToolCall, Usage } from '@hub/domain';
import { assistantMessageId, DomainError, toolCallIdFor } from '@hub/domain';
import { ATTR, hubMetrics, withSpan } from '@hub/telemetry';
import type { ModelFinishReason, ModelProvider, ModelStreamPart, ToolSpec } from '../providers/types';
import type { TurnAttempt } from './context';
import { buildModelMessages } from './transcript';

export interface ModelStepPlan {
  step: number;
  callId: string;
  started: boolean;
  recordedText: string;
  recordedThought: string;
}

/** How often streamed text is written to the log: by size, or once its oldest char has waited `maxDelayMs` for more output. */
export interface FlushPolicy {
  maxChars: number;
  maxDelayMs: number;
  /**
   * The window of a call's first write (its start and first words), when it differs: a crowd
   * widens the others, but the first words of an answer still reach watchers at once.
   */
  firstDelayMs?: number;
}

export interface ModelStepDeps {
  provider: ModelProvider;
  tools: ToolSpec[];
  signal: AbortSignal;
  flush: FlushPolicy;
  now: () => number;
  /** Told what each recorded model call used (a tenant's daily token count); must not throw. */
  onUsage?: (tenantId: string, usage: Usage) => Promise<void>;
}

/**
 * Skips what a previous attempt already recorded. A retried model call is asked again (the
 * provider has no memory of the first attempt); the part of its answer that the log holds is
 * not written again, so no stream sees it twice. An answer that differs from the recorded part
 * (a non-deterministic provider) cannot be spliced honestly, so it fails the turn.
 */
class Resumable {
  private seen = 0;
  constructor(private readonly recorded: string) {}

  /** Returns the part of `chunk` that is new. */
  take(chunk: string): string {
    const start = this.seen;
    this.seen += chunk.length;
    if (start >= this.recorded.length) return chunk;
    const overlap = this.recorded.slice(start, start + chunk.length);
    if (!chunk.startsWith(overlap)) throw new DomainError('INTERNAL', 'model output diverged from the recorded prefix on retry');
    return chunk.slice(overlap.length);
  }
}

type DeltaKind = 'text' | 'thought';

/**
 * Streamed text and thoughts on their way into the log, coalesced (see {@link FlushPolicy}):
 * consecutive chunks of one kind become one `TextDelta` / `ThoughtDelta` whose offset is the
 * first chunk's, so a flush writes one event per kind run, not one per token.
 *
 * A window's flush does not hold up the model's stream (ADR 0031): it is appended in the
 * background while the next chunks are read, one append at a time (the next waits for the one
 * before, and takes whatever is pending when it starts). Awaiting each append before reading on
 * stretched every answer by its appends' latency, which a crowd makes long. A failed append
 * (a conflict: someone else wrote) surfaces at the writer's next call, and the runner re-plans.
 */
class DeltaWriter {
  private pending: HubEvent[] = [];
  private pendingChars = 0;
  /** When the oldest pending char, or else the call's staged start, began to wait (set when the writer is made). */
  private oldest: number;
  private readonly text: Resumable;
  private readonly thought: Resumable;
  private textOffset: number;
  private thoughtOffset: number;
  /** The appends asked for so far, in order: each starts when the one before has ended. */
  private appends: Promise<void> = Promise.resolve();
  /** A flush is asked for and has not taken the pending text yet: the window is being served. */
  private asked = false;
  private failure: { error: unknown } | null = null;
  /** Fires when the oldest pending char (or the staged start) has waited a whole window. */
  private timer: NodeJS.Timeout | undefined;
  /** Whether this call has asked for a write yet: its first uses `firstDelayMs`. */
  private wrote = false;
  fullText = '';

  constructor(
    private readonly attempt: TurnAttempt,
    private readonly plan: ModelStepPlan,
    private readonly deps: ModelStepDeps,
  ) {
    this.text = new Resumable(plan.recordedText);
    this.thought = new Resumable(plan.recordedThought);
    this.textOffset = plan.recordedText.length;
    this.thoughtOffset = plan.recordedThought.length;
    // The writer is made as the call starts: a staged start waits from here, and reaches
    // watchers within one window even if the model stays silent.
    this.oldest = deps.now();
    if (attempt.hasStaged()) this.arm();
  }

  async add(kind: DeltaKind, chunk: string): Promise<void> {
    this.rethrow();
    if (kind === 'text') this.fullText += chunk;
    const fresh = (kind === 'text' ? this.text : this.thought).take(chunk);
    if (!fresh) return;
    const offset = kind === 'text' ? this.textOffset : this.thoughtOffset;
    if (kind === 'text') this.textOffset += fresh.length;
    else this.thoughtOffset += fresh.length;
    this.coalesce(kind, offset, fresh);
    if (this.pendingChars === 0 && !this.attempt.hasStaged()) this.oldest = this.deps.now();
    this.pendingChars += fresh.length;
    this.arm();
    // Only the size cap here: the window is a timer, armed when text starts to wait. Checking
    // the clock per chunk would split an answer that is already there whenever the process is
    // slow (a busy machine), which is not model output taking time. Past the cap the model waits
    // for the log: what is pending stays bounded however slow the appends are.
    if (this.pendingChars >= this.deps.flush.maxChars) {
      this.flushSoon();
      await this.drain();
    }
  }

  /** Appends to the last pending delta when it is of the same kind (offsets stay contiguous), else opens one. */
  private coalesce(kind: DeltaKind, offset: number, fresh: string): void {
    const type = kind === 'text' ? 'TextDelta' : 'ThoughtDelta';
    const last = this.pending[this.pending.length - 1];
    if (last && last.type === type) {
      last.data = { ...last.data, text: last.data.text + fresh };
      return;
    }
    const data = { turnId: this.attempt.turnId, messageId: assistantMessageId(this.attempt.turnId), callId: this.plan.callId, offset, text: fresh };
    this.pending.push(type === 'TextDelta' ? { type, data } : { type, data });
  }

  /**
   * Sets the window's timer unless one is set or a flush already asked for will take what waits:
   * one timer per window, not one per chunk (a crowd streams hundreds of thousands of chunks).
   */
  private arm(): void {
    if (this.timer || this.asked) return;
    const { maxDelayMs, firstDelayMs } = this.deps.flush;
    const window = this.wrote ? maxDelayMs : Math.min(maxDelayMs, firstDelayMs ?? maxDelayMs);
    const wait = Math.max(0, this.oldest + window - this.deps.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushSoon();
    }, wait);
  }

  /** No more windows: the call has ended (its rest goes with the turn's next append) or failed. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Asks for what is pending (and what the attempt staged before it) to be appended, after the appends before it; does not wait. */
  flushSoon(): void {
    if (this.asked) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.asked = true;
    this.wrote = true;
    this.appends = this.appends.then(async () => {
      this.asked = false;
      if (this.failure) return;
      const events = this.pending;
      this.pending = [];
      this.pendingChars = 0;
      if (events.length === 0 && !this.attempt.hasStaged()) return;
      try {
        await this.attempt.append(events);
      } catch (error) {
        this.failure = { error };
      }
    });
  }

  /** Waits for every append asked for so far; throws the first that failed. */
  async drain(): Promise<void> {
    this.stop();
    await this.appends;
    this.rethrow();
  }

  /** Waits for every append asked for so far, whatever became of them. */
  async settle(): Promise<void> {
    this.stop();
    await this.appends;
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }

  /**
   * Hands what is pending, with `last` (the call's outcome), to the attempt's next append: what
   * the turn does next (end, or start a tool) writes it first, in the same append. Call after
   * {@link drain}: the attempt's version must be the last append's.
   */
  stageRest(last: HubEvent[]): void {
    this.attempt.stage([...this.pending, ...last]);
    this.pending = [];
    this.pendingChars = 0;
  }
}

function recordStart(attempt: TurnAttempt, plan: ModelStepPlan, deps: ModelStepDeps, messageCount: number): void {
  if (plan.started) return;
  const data = {
    turnId: attempt.turnId,
    callId: plan.callId,
    step: plan.step,
    provider: deps.provider.name,
    model: deps.provider.model,
    messageCount,
    toolNames: deps.tools.map((t) => t.name),
  };
  attempt.stage([{ type: 'ModelCallStarted', data }]);
}

/** One ReAct model call: stream it into the log, then record its outcome once (in a `model call` span). */
export function runModelStep(attempt: TurnAttempt, plan: ModelStepPlan, deps: ModelStepDeps): Promise<void> {
  const attrs = { [ATTR.MODEL_PROVIDER]: deps.provider.name, [ATTR.MODEL]: deps.provider.model, [ATTR.STEP]: plan.step, [ATTR.TURN_ID]: attempt.turnId };
  return withSpan('model call', attrs, async (span) => {
    const t0 = performance.now();
    let firstText: number | undefined;
    // Built once: recording the start appends nothing the conversation shows.
    const messages = buildModelMessages(attempt.sessionView());
    recordStart(attempt, plan, deps, messages.length);
    const writer = new DeltaWriter(attempt, plan, deps);
    const toolCalls: RequestedToolCall[] = [];
    let finish: { finishReason: ModelFinishReason; usage: Usage } | null = null;
    try {
      // Inside the try: a provider that fails as it is called leaves no window's timer behind.
      const parts: AsyncIterable<ModelStreamPart> = deps.provider.stream({ messages, tools: deps.tools, signal: deps.signal });
      for await (const part of parts) {
        if (part.type === 'text-delta') {
          firstText ??= performance.now();
          await writer.add('text', part.text);
        } else if (part.type === 'reasoning-delta') await writer.add('thought', part.text);
        else if (part.type === 'tool-call')
          toolCalls.push({ toolCallId: toolCallIdFor(attempt.turnId, plan.step, toolCalls.length), name: part.name, input: part.input });
        else finish = { finishReason: part.finishReason, usage: part.usage };
      }
    } catch (e) {
      // Whatever the runner does next (re-plan, fail the turn) appends: no window's append may
      // still be on its way beside it.
      await writer.settle();
      throw e;
    }
    // The window's appends still running must have ended: the outcome follows them.
    await writer.drain();
    if (!finish) throw new Error(`model stream of ${plan.callId} ended without a finish part`);
    const data = {
      turnId: attempt.turnId,
      callId: plan.callId,
      step: plan.step,
      text: writer.fullText,
      toolCalls,
      finishReason: finish.finishReason,
      usage: finish.usage,
    };
    writer.stageRest([{ type: 'ModelCallCompleted', data }]);
    const ttft = firstText === undefined ? undefined : firstText - t0;
    span.setAttributes({
      'gen_ai.usage.input_tokens': finish.usage.promptTokens,
      'gen_ai.usage.output_tokens': finish.usage.completionTokens,
      'gen_ai.response.finish_reasons': finish.finishReason,
      'hub.time_to_first_token_ms': ttft === undefined ? undefined : Math.round(ttft),
      'hub.tool_calls': toolCalls.length,
    });
    const m = hubMetrics();
    const model = { provider: deps.provider.name, model: deps.provider.model };
    m.modelCallDuration.record((performance.now() - t0) / 1000, model);
    if (ttft !== undefined && plan.step === 0) m.turnFirstDelta.record(ttft / 1000, model);
    m.modelTokens.add(finish.usage.promptTokens, { tenant: attempt.tenantId, kind: 'prompt' });
    m.modelTokens.add(finish.usage.completionTokens, { tenant: attempt.tenantId, kind: 'completion' });
    await deps.onUsage?.(attempt.tenantId, finish.usage);
  });
}
