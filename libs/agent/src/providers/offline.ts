import type { ModelMessage, ModelProvider, ModelRequest, ModelStreamPart, ModelUsage } from './types';
import { planOfflineReply } from './offline-script';

/** Options of {@link OfflineProvider}. */
export interface OfflineProviderOptions {
  /** Pause between streamed chunks, in ms. 0 streams as fast as the consumer reads. */
  delayMs?: number;
  /** Reported as `model`; defaults to `scripted-v1`. */
  model?: string;
}

/** Floor of the per-chunk pause for `slow` prompts, so a timeout test is slow even with delay 0. */
export const SLOW_MIN_DELAY_MS = 50;

/**
 * The default model: deterministic, no network. Its replies are scripted from the last user
 * message (see libs/agent/README.md for the table) so every path of the agent loop — tool
 * calls, approvals, denials, failures, long streams, aborts — can be driven from a prompt.
 */
export class OfflineProvider implements ModelProvider {
  readonly name = 'offline';
  readonly model: string;
  private readonly delayMs: number;

  constructor(opts: OfflineProviderOptions = {}) {
    this.delayMs = Math.max(0, opts.delayMs ?? 0);
    this.model = opts.model ?? 'scripted-v1';
  }

  async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    req.signal.throwIfAborted();
    const plan = planOfflineReply(req.messages);
    const delay = plan.slow ? Math.max(SLOW_MIN_DELAY_MS, 10 * this.delayMs) : this.delayMs;
    const parts: ModelStreamPart[] = [
      ...chunkWords(plan.reasoning).map((text): ModelStreamPart => ({ type: 'reasoning-delta', text })),
      ...chunkWords(plan.text).map((text): ModelStreamPart => ({ type: 'text-delta', text })),
      ...plan.toolCalls.map((c): ModelStreamPart => ({ type: 'tool-call', ...c })),
    ];
    const outputChars = plan.reasoning.length + plan.text.length + plan.toolCalls.reduce((n, c) => n + c.name.length + json(c.input).length, 0);
    const pacer = new Pacer(req.signal);
    const start = performance.now();
    try {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await pacer.until(start + i * delay);
        else req.signal.throwIfAborted();
        yield part;
      }
    } finally {
      pacer.close();
    }
    req.signal.throwIfAborted();
    yield { type: 'finish', finishReason: plan.finishReason, usage: usage(req.messages, outputChars) };
  }
}

/** Splits text into word-sized chunks (each word with its trailing space) that join back exactly. */
export function chunkWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

function usage(messages: readonly ModelMessage[], outputChars: number): ModelUsage {
  const promptChars = messages.reduce((n, m) => n + m.content.length + (m.role === 'assistant' && m.toolCalls ? json(m.toolCalls).length : 0), 0);
  const promptTokens = Math.max(1, Math.ceil(promptChars / 4));
  const completionTokens = Math.max(1, Math.ceil(outputChars / 4));
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function json(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

/**
 * The model's clock: chunk i is due `i × delay` after the first, as a remote model's tokens
 * arrive at its server's pace however busy the reader is (a busy reader finds several waiting
 * and takes them at once, it does not slow the model down). A pause per chunk measured from
 * whenever the reader got round to it would instead stretch every answer by the reader's
 * event-loop delay, once per chunk. Waits end as soon as the signal fires (a cancelled turn stops
 * mid-stream, not after the current pause), with one abort listener for the whole stream: a
 * listener added and removed per chunk was a visible share of a crowded worker's CPU.
 */
class Pacer {
  private waiting: { timer: NodeJS.Timeout; reject: (reason: unknown) => void } | null = null;
  private readonly onAbort = (): void => {
    if (!this.waiting) return;
    clearTimeout(this.waiting.timer);
    this.waiting.reject(this.signal.reason);
    this.waiting = null;
  };

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Resolves at `due` (a `performance.now()` time; at once when it has passed), or rejects with the abort reason as soon as the signal fires. */
  until(due: number): Promise<void> {
    this.signal.throwIfAborted();
    const ms = due - performance.now();
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve();
      }, ms);
      this.waiting = { timer, reject };
    });
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = null;
  }
}
