import { modelCallId, pendingSteers, toolCallIdFor, type HubEvent, type Usage } from '@hub/domain';
import { TurnAttempt, isConflict } from '../runtime/context';
import type { FlushPolicy } from '../runtime/model-step';
import type { TurnScheduler } from '../runtime/ports';
import { appendTurnEnd } from '../runtime/turn-end';
import type { HarnessOutput, HarnessPermissionAnswer, HarnessPermissionRequest, HarnessSink } from './adapter';
import { TurnEndedElsewhere } from './harness-errors';

export interface TurnWriterDeps {
  scheduler: TurnScheduler;
  /** `harness:acp:<name>`: who ran the tools. */
  executor: string;
  /** `harness:<kind>` and the model (or harness) name, for `ModelCallStarted`. */
  provider: string;
  model: string;
  flush: FlushPolicy;
  /** 0: approvals wait until answered; else they are denied this long after being asked. */
  approvalTtlMs: number;
  /** How often a waiting approval re-reads the log. */
  pollMs: number;
  signal: AbortSignal;
  now: () => number;
}

const ZERO: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const MAX_CONFLICT_RETRIES = 50;

interface OpenTool {
  ours: string;
  name: string;
  input: unknown;
  startedAt: number;
  completed: boolean;
  asked: number;
}

/**
 * Writes one external harness turn into the log as the canonical events, in the order the
 * harness produced its output. The harness's ReAct loop maps onto model calls: text and thoughts
 * stream into the open call (`TextDelta` / `ThoughtDelta`, batched by the flush policy); a tool
 * call closes it (`ModelCallCompleted` with that call, then `ToolCallStarted`), and text after
 * it opens the next. So every reader — approvals, OpenEnv observations, ACP and transport
 * streams, replay — sees a harness turn exactly as it sees a built-in one.
 *
 * Appends are serialized; a version conflict (an approval, a cancel) re-reads the log and, if
 * the turn still runs, appends again; if it ended elsewhere, `failure` rejects.
 */
export class HarnessTurnWriter implements HarnessSink {
  private queue: Promise<void> = Promise.resolve();
  private broken: unknown = null;
  private closing = false;
  /** Time spent waiting for a person's decision (approvals), finished waits and the open one. */
  private waitedMs = 0;
  private waitingSince: number | null = null;
  private rejectFailure!: (e: unknown) => void;
  /** Rejects on the first write that failed (a conflict that showed the turn ended, a store error). */
  readonly failure = new Promise<never>((_, reject) => (this.rejectFailure = reject));
  private step = 0;
  private callOpen = false;
  private callText = '';
  private callThought = '';
  private turnText = '';
  private pending: HubEvent[] = [];
  private pendingChars = 0;
  private flushTimer?: NodeJS.Timeout;
  private readonly tools = new Map<string, OpenTool>();

  constructor(
    private readonly attempt: TurnAttempt,
    private readonly deps: TurnWriterDeps,
  ) {
    this.failure.catch(() => undefined);
  }

  private get turnId(): string {
    return this.attempt.turnId;
  }

  private get messageId(): string {
    return `${this.turnId}:m`;
  }

  /** `MessageStarted` and the first model call, in one append. */
  async begin(messageCount: number): Promise<void> {
    await this.write([{ type: 'MessageStarted', data: { turnId: this.turnId, messageId: this.messageId, role: 'assistant' } }, ...this.openCall(messageCount)]);
  }

  emit(out: HarnessOutput): void {
    this.enqueue(() => this.apply(out));
  }

  askPermission(req: HarnessPermissionRequest): Promise<HarnessPermissionAnswer> {
    return new Promise((resolve, reject) => this.enqueue(() => this.permission(req).then(resolve, reject)));
  }

  /**
   * Delivers the session's pending steers (queued `steer` messages) into this running turn through
   * `deliver` (the harness's own live input). Each is recorded first, as `UserMessageInjected`
   * at the log's version, so a revoke racing it either wins (the message is never sent) or loses
   * (`already_delivered`); only then is it sent. Resolves with how many were delivered.
   */
  deliverSteers(deliver: (text: string) => Promise<void>): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.enqueue(() => this.steers(deliver).then(resolve, reject));
      // Skipped because the turn is over or broken: nothing was delivered.
      void this.queue.then(() => resolve(0));
    });
  }

  /** Waits until everything emitted so far is in the log. */
  async drain(): Promise<void> {
    this.enqueue(() => this.flush());
    await this.queue;
    if (this.broken) throw this.broken;
  }

  /**
   * The turn's end: open tools closed, the last model call completed, then `TurnCompleted`
   * (with `done` when the harness said its task is complete).
   */
  async complete(done = false, usage: Usage = ZERO): Promise<void> {
    await this.drain();
    const events: HubEvent[] = this.closeTools('complete', '');
    // After a tool call no call is open: the answer (possibly empty) gets its own, as a built-in turn's does.
    events.push(...this.openCall(0), this.closeCall([], 'stop', usage));
    events.push({ type: 'MessageCompleted', data: { turnId: this.turnId, messageId: this.messageId } });
    events.push({
      type: 'TurnCompleted',
      data: { turnId: this.turnId, text: this.turnText, stopReason: 'end_turn', usage, ...(done ? { done: true as const } : {}) },
    });
    await this.end(events);
  }

  /** Fails the turn (when it still runs), whatever the queue is doing: the harness is gone. */
  async fail(code: string, message: string): Promise<void> {
    this.closing = true;
    clearTimeout(this.flushTimer);
    await Promise.race([this.queue, new Promise((r) => setTimeout(r, 2 * this.deps.pollMs + 1000))]);
    await this.end([
      ...this.pending.splice(0),
      ...this.closeTools('error', `ERROR: ${message}`),
      { type: 'TurnFailed', data: { turnId: this.turnId, code, message, retryable: false } },
    ]);
  }

  /** Stops writing: the turn ended elsewhere (cancelled) and nothing more belongs to it. */
  abandon(): void {
    this.closing = true;
    clearTimeout(this.flushTimer);
  }

  private enqueue(op: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.broken || this.closing) return;
      try {
        await op();
      } catch (e) {
        this.broken = e;
        this.rejectFailure(e);
      }
    });
  }

  private async apply(out: HarnessOutput): Promise<void> {
    switch (out.type) {
      case 'text':
      case 'thought':
        return this.delta(out.type, out.text);
      case 'tool_call':
      case 'tool_update': {
        const events: HubEvent[] = [];
        if (!this.tools.has(out.id)) events.push(...this.startTool(out.id, out.name ?? out.id, out.input ?? null, 'allow'));
        const tool = this.tools.get(out.id) as OpenTool;
        if (out.type === 'tool_update' && out.message && out.status !== 'completed' && out.status !== 'failed') {
          events.push({ type: 'ToolCallUpdated', data: { turnId: this.turnId, toolCallId: tool.ours, message: out.message } });
        }
        if ((out.status === 'completed' || out.status === 'failed') && !tool.completed) {
          tool.completed = true;
          const durationMs = Math.max(0, this.deps.now() - tool.startedAt);
          events.push({
            type: 'ToolCallCompleted',
            data: { turnId: this.turnId, toolCallId: tool.ours, status: out.status === 'failed' ? 'error' : 'complete', output: out.output ?? '', durationMs },
          });
        }
        if (events.length) await this.write([...this.takePending(), ...events]);
        return;
      }
    }
  }

  private async delta(kind: 'text' | 'thought', text: string): Promise<void> {
    if (!text) return;
    const events = this.callOpen ? [] : this.openCall(0);
    if (events.length) await this.write([...this.takePending(), ...events]);
    const offset = kind === 'text' ? this.callText.length : this.callThought.length;
    if (kind === 'text') {
      this.callText += text;
      this.turnText += text;
    } else this.callThought += text;
    const data = { turnId: this.turnId, messageId: this.messageId, callId: modelCallId(this.turnId, this.step), offset, text };
    this.pending.push(kind === 'text' ? { type: 'TextDelta', data } : { type: 'ThoughtDelta', data });
    this.pendingChars += text.length;
    if (this.pendingChars >= this.deps.flush.maxChars) return this.flush();
    if (!this.flushTimer) this.flushTimer = setTimeout(() => this.enqueue(() => this.flush()), this.deps.flush.maxDelayMs);
  }

  private async flush(): Promise<void> {
    const events = this.takePending();
    if (events.length) await this.write(events);
  }

  private takePending(): HubEvent[] {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.pendingChars = 0;
    return this.pending.splice(0);
  }

  /** Records the request (with the tool's start, when the harness had not reported it) and waits for its answer in the log. */
  private async permission(req: HarnessPermissionRequest): Promise<HarnessPermissionAnswer> {
    const events: HubEvent[] = this.takePending();
    if (!this.tools.has(req.toolCallId)) events.push(...this.startTool(req.toolCallId, req.toolName, req.input, 'ask'));
    const tool = this.tools.get(req.toolCallId) as OpenTool;
    tool.asked += 1;
    const approvalId = `appr_${tool.ours}${tool.asked > 1 ? `_${tool.asked}` : ''}`;
    const ttl = this.deps.approvalTtlMs;
    const deadlineAt = ttl > 0 ? new Date(this.deps.now() + ttl).toISOString() : null;
    events.push({
      type: 'ApprovalRequested',
      data: {
        turnId: this.turnId,
        approvalId,
        toolCallId: tool.ours,
        toolName: tool.name,
        input: tool.input,
        riskTier: 'medium',
        reason: req.reason,
        deadlineAt,
      },
    });
    // The deadline before the append (as the turn runner does): a worker dying between the two
    // must not leave an approval with none.
    if (deadlineAt !== null) await this.deps.scheduler.scheduleApprovalExpiry(this.attempt.tenantId, this.attempt.sessionId, approvalId, ttl, deadlineAt);
    await this.write(events);
    return this.awaitResolution(approvalId);
  }

  /**
   * How long the turn has waited for people so far (approvals): that time is not the harness's,
   * so it does not count against the turn's `session_timeout_s` budget.
   */
  humanWaitMs(): number {
    return this.waitedMs + (this.waitingSince === null ? 0 : this.deps.now() - this.waitingSince);
  }

  /** Whether the turn is waiting for a person's decision right now. */
  get awaitingPerson(): boolean {
    return this.waitingSince !== null;
  }

  private async steers(deliver: (text: string) => Promise<void>): Promise<number> {
    await this.flush();
    for (let i = 0; ; i++) {
      await this.attempt.reload();
      this.assertRunning();
      const steers = pendingSteers(this.attempt.session());
      if (steers.length === 0) return 0;
      const delivered: HubEvent[] = steers.map((q) => ({
        type: 'UserMessageInjected',
        data: { turnId: this.turnId, fromTurnId: q.turnId, messageId: q.request.userMessageId, text: q.request.prompt, beforeStep: this.step },
      }));
      try {
        await this.attempt.append(delivered);
      } catch (e) {
        if (isConflict(e) && i < MAX_CONFLICT_RETRIES) continue; // a revoke, an approval...: decide again
        throw e;
      }
      for (const q of steers) await deliver(q.request.prompt);
      return steers.length;
    }
  }

  /** Polls the log: the answer may come over any protocol, to any ingress, or from the deadline job. */
  private async awaitResolution(approvalId: string): Promise<HarnessPermissionAnswer> {
    this.waitingSince ??= this.deps.now();
    try {
      for (;;) {
        if (this.deps.signal.aborted || this.closing) return 'cancelled';
        await this.attempt.reload();
        const resolved = this.attempt.events.find((e) => e.type === 'ApprovalResolved' && e.data.approvalId === approvalId);
        if (resolved?.type === 'ApprovalResolved') return resolved.data.decision;
        this.assertRunning();
        await new Promise((r) => setTimeout(r, this.deps.pollMs));
      }
    } finally {
      if (this.waitingSince !== null) this.waitedMs += this.deps.now() - this.waitingSince;
      this.waitingSince = null;
    }
  }

  private openCall(messageCount: number): HubEvent[] {
    if (this.callOpen) return [];
    this.callOpen = true;
    this.callText = '';
    this.callThought = '';
    const data = {
      turnId: this.turnId,
      callId: modelCallId(this.turnId, this.step),
      step: this.step,
      provider: this.deps.provider,
      model: this.deps.model,
      messageCount,
      toolNames: [],
    };
    return [{ type: 'ModelCallStarted', data }];
  }

  private closeCall(toolCalls: { toolCallId: string; name: string; input: unknown }[], finishReason: 'stop' | 'tool_calls', usage: Usage = ZERO): HubEvent {
    this.callOpen = false;
    const data = { turnId: this.turnId, callId: modelCallId(this.turnId, this.step), step: this.step, text: this.callText, toolCalls, finishReason, usage };
    this.step += 1;
    return { type: 'ModelCallCompleted', data };
  }

  /** A tool call of the harness: it closes the open model call (opening an empty one if none is open). */
  private startTool(nativeId: string, name: string, input: unknown, policy: 'allow' | 'ask'): HubEvent[] {
    const ours = toolCallIdFor(this.turnId, this.step, 0);
    this.tools.set(nativeId, { ours, name, input, startedAt: this.deps.now(), completed: false, asked: 0 });
    const events = this.openCall(0);
    events.push(this.closeCall([{ toolCallId: ours, name, input }], 'tool_calls'));
    events.push({
      type: 'ToolCallStarted',
      data: { turnId: this.turnId, messageId: this.messageId, toolCallId: ours, name, input, policy, executor: this.deps.executor },
    });
    return events;
  }

  private closeTools(status: 'complete' | 'error', output: string): HubEvent[] {
    return [...this.tools.values()]
      .filter((t) => !t.completed)
      .map((t) => {
        t.completed = true;
        return {
          type: 'ToolCallCompleted',
          data: { turnId: this.turnId, toolCallId: t.ours, status, output, durationMs: Math.max(0, this.deps.now() - t.startedAt) },
        };
      });
  }

  private assertRunning(): void {
    const status = this.attempt.progress().status;
    if (status !== 'running') throw new TurnEndedElsewhere(`turn ${this.turnId} is ${status}`);
  }

  private async write(events: HubEvent[]): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        await this.attempt.append(events);
        return;
      } catch (e) {
        if (!isConflict(e) || i >= MAX_CONFLICT_RETRIES) throw e;
        await this.attempt.reload();
        this.assertRunning();
      }
    }
  }

  /** The last events of the turn, with the next queued turn's start in the same append. */
  private async end(ending: HubEvent[]): Promise<void> {
    for (let i = 0; ; i++) {
      await this.attempt.reload();
      if (this.attempt.progress().status !== 'running') return;
      try {
        await appendTurnEnd(this.attempt, ending, this.deps.scheduler);
      } catch (e) {
        if (isConflict(e) && i < MAX_CONFLICT_RETRIES) continue;
        throw e;
      }
      return;
    }
  }
}
