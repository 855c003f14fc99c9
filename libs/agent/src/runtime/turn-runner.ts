import { failCurrentSpan, hubMetrics } from '@hub/telemetry';
import {
  assistantMessageId,
  DomainError,
  redriveOf,
  pendingReminders,
  pendingSteers,
  planNextStep,
  type Actor,
  type HubEvent,
  type LiveInput,
  type NextStep,
  type Recorded,
  type SessionState,
  type SessionView,
  type TurnContext,
  type Usage,
} from '@hub/domain';
import { ProviderError } from '../providers/types';
import type { ModelProvider } from '../providers/types';
import type { ToolRegistry } from '../tools/registry';
import { TurnAttempt, isConflict } from './context';
import type { RecordedTools } from './recorded-tools';
import { runModelStep, type FlushPolicy } from './model-step';
import type { RunningTurns, TurnLog, TurnScheduler } from './ports';
import { refuseTool, runTool, startTool, type ToolStepDeps } from './tool-step';
import type { LoadedPolicy } from '../tools/policy';
import { appendTurnEnd } from './turn-end';

export interface TurnRunnerDeps {
  log: TurnLog;
  scheduler: TurnScheduler;
  running: RunningTurns;
  provider: ModelProvider;
  tools: ToolRegistry;
  /**
   * When given, a turn's tools are built from its request context instead (e.g. the built-ins
   * plus an OpenEnv environment's MCP tools); called once per job, before the first step.
   */
  toolsFor?: (context: TurnContext, tenantId: string) => Promise<ToolRegistry>;
  /** The model a turn's context names (`context.model`, e.g. a re-drive's target); else `provider`. */
  providerFor?: (context: TurnContext) => ModelProvider;
  /**
   * A re-drive with recorded tools: the source session's tool results, read once per job. Null
   * for any other turn.
   */
  recordedFor?: (context: TurnContext, tenantId: string) => Promise<RecordedTools | null>;
  /** The tenant's approval policy in force (read once per job that runs a tool step); absent: the built-in one. */
  policyFor?: (tenantId: string) => Promise<LoadedPolicy>;
  worker: Actor;
  /** Told what each recorded model call used (tenant limits); must not throw. */
  onUsage?: (tenantId: string, usage: Usage) => Promise<void>;
  maxSteps: number;
  approvalTtlMs: number;
  flush: FlushPolicy;
  now?: () => number;
}

export interface RunTurnInput {
  tenantId: string;
  sessionId: string;
  turnId: string;
  trace: { correlationId: string; traceparent?: string; tracestate?: string };
  /** The job's id: causation of every event this attempt appends. */
  causationId: string;
  /** On the last attempt a retryable failure fails the turn instead of being retried. */
  finalAttempt: boolean;
  /**
   * The session's stream as the caller already read it: the runner reads only what follows.
   * With `view` (a snapshot with `events`, the tail read after it, folded in), `events` are only
   * that tail; `sinceSaved` counts the events since the stored snapshot.
   */
  seed?: { version: number; events: Recorded<HubEvent>[]; view?: SessionView; sinceSaved?: number };
}

export type RunTurnOutcome = 'completed' | 'suspended' | 'failed' | 'stopped';

// Bounds one job: every pass appends at least one event or returns, so this is only a guard
// against a planning bug turning into a hot loop.
const MAX_PASSES = 2000;

/**
 * Advances one turn as far as it can go: ReAct steps (model call, tools, repeat) until an
 * answer, an approval to wait for (the job ends; no worker slot is held), a cancel, or a
 * failure. Everything it does is planned from the log, so any worker can pick up any turn.
 */
export class TurnRunner {
  private readonly now: () => number;

  constructor(private readonly deps: TurnRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  async run(input: RunTurnInput): Promise<RunTurnOutcome> {
    const attempt = new TurnAttempt(this.deps.log, input.tenantId, input.sessionId, input.turnId, {
      ...input.trace,
      causationId: input.causationId,
      actor: this.deps.worker,
    });
    if (input.seed?.view) attempt.seedView(input.seed.view, input.seed.version, input.seed.events, input.seed.sinceSaved);
    else if (input.seed) attempt.seed(input.seed.version, input.seed.events);
    const abort = this.deps.running.begin(input.tenantId, input.turnId);
    try {
      return await this.loop(attempt, abort.signal, input.finalAttempt);
    } finally {
      this.deps.running.end(input.tenantId, input.turnId, abort);
      // The session as this attempt left it: the next job of this session here starts from it.
      this.deps.log.keepView?.(input.tenantId, attempt.streamId, attempt.handOver());
    }
  }

  private async loop(attempt: TurnAttempt, signal: AbortSignal, finalAttempt: boolean): Promise<RunTurnOutcome> {
    let tools: ToolRegistry | undefined;
    let recorded: ToolStepDeps['recorded'];
    let policy: LoadedPolicy | undefined;
    const plan = () => planNextStep(attempt.progress(), { maxSteps: this.deps.maxSteps, live: liveInput(attempt.session()) });
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const read = await attempt.refresh();
      let step = plan();
      // A tool runs outside the log: it must not run on a turn someone cancelled meanwhile, so
      // it is planned from a read made now (every other step starts with a checked append).
      if (step.kind === 'run-tool' && !read) {
        await attempt.reload();
        step = plan();
      }
      if (step.kind === 'idle' || step.kind === 'await-approval') {
        if (attempt.hasStaged()) throw new Error(`turn ${attempt.turnId}: ${step.kind} with progress still staged`);
        return step.kind === 'idle' ? 'stopped' : 'suspended';
      }
      try {
        tools ??= await this.toolsOf(attempt);
        if (recorded === undefined) recorded = await this.recordedOf(attempt);
        if (step.kind === 'run-tool' || step.kind === 'start-tool') policy ??= await this.deps.policyFor?.(attempt.tenantId);
        const done = await this.perform(attempt, step, signal, tools, recorded, policy);
        if (done) return 'completed';
      } catch (e) {
        if (isConflict(e) || signal.aborted) {
          attempt.markStale(); // someone else wrote: re-read and re-plan
          continue;
        }
        const failed = await this.failIfFinal(attempt, e, finalAttempt);
        if (failed) return 'failed';
        throw e;
      }
    }
    throw new Error(`turn ${attempt.turnId} did not settle in ${MAX_PASSES} passes`);
  }

  private async toolsOf(attempt: TurnAttempt): Promise<ToolRegistry> {
    if (!this.deps.toolsFor) return this.deps.tools;
    return this.deps.toolsFor(attempt.progress().request?.context ?? {}, attempt.tenantId);
  }

  /** A re-drive's recorded tool results for this turn (null: tools run live). */
  private async recordedOf(attempt: TurnAttempt): Promise<ToolStepDeps['recorded']> {
    const context = attempt.progress().request?.context ?? {};
    const redrive = redriveOf(context);
    if (!redrive || redrive.tools !== 'recorded' || !this.deps.recordedFor) return null;
    const tools = await this.deps.recordedFor(context, attempt.tenantId);
    return tools ? { tools, sourceTurnId: redrive.sourceTurnId } : null;
  }

  /** Does one step; true when the turn is finished. */
  private async perform(
    attempt: TurnAttempt,
    step: Exclude<NextStep, { kind: 'idle' | 'await-approval' }>,
    signal: AbortSignal,
    tools: ToolRegistry,
    recorded: ToolStepDeps['recorded'],
    policy: LoadedPolicy | undefined,
  ): Promise<boolean> {
    const scheduleExpiry = (approvalId: string, deadlineMs: number, deadlineAt: string) =>
      this.deps.scheduler.scheduleApprovalExpiry(attempt.tenantId, attempt.sessionId, approvalId, deadlineMs, deadlineAt);
    const toolDeps: ToolStepDeps = { tools, signal, now: this.now, approvalTtlMs: this.deps.approvalTtlMs, recorded, policy, scheduleExpiry };
    const provider = this.deps.providerFor?.(attempt.progress().request?.context ?? {}) ?? this.deps.provider;
    switch (step.kind) {
      case 'start-message':
        // Written with the model call's first output (or after one flush window without any).
        attempt.stage([{ type: 'MessageStarted', data: { turnId: attempt.turnId, messageId: assistantMessageId(attempt.turnId), role: 'assistant' } }]);
        hubMetrics().turnsStarted.add(1, { protocol: protocolOf(attempt) });
        return false;
      case 'call-model':
        await runModelStep(attempt, step, { provider, tools: tools.specs(), signal, flush: this.deps.flush, now: this.now, onUsage: this.deps.onUsage });
        return false;
      case 'start-tool':
        // An approval's deadline is scheduled inside, before the approval is appended.
        await startTool(attempt, step.tool, toolDeps);
        return false;
      case 'run-tool':
        await runTool(attempt, step.tool, toolDeps, step.edited);
        return false;
      case 'refuse-tool':
        await refuseTool(attempt, step.tool, step.reason);
        return false;
      case 'deliver-input':
        await attempt.append(deliveries(attempt.turnId, step));
        return false;
      case 'complete': {
        const usage = attempt.progress().usage;
        await this.endTurn(attempt, [
          ...auditOnlyDrain(attempt.turnId, attempt.session()),
          { type: 'MessageCompleted', data: { turnId: attempt.turnId, messageId: assistantMessageId(attempt.turnId) } },
          { type: 'TurnCompleted', data: { turnId: attempt.turnId, text: step.text, stopReason: step.stopReason, usage } },
        ]);
        return true;
      }
    }
  }

  /** Appends the turn's last events and starts the next queued turn in the same append. */
  private endTurn(attempt: TurnAttempt, ending: HubEvent[]): Promise<void> {
    return appendTurnEnd(attempt, ending, this.deps.scheduler);
  }

  private async failIfFinal(attempt: TurnAttempt, e: unknown, finalAttempt: boolean): Promise<boolean> {
    const retryable = e instanceof ProviderError ? e.retryable : !(e instanceof DomainError);
    if (retryable && !finalAttempt) return false;
    const code = e instanceof DomainError ? e.code : 'INTERNAL';
    const message = e instanceof Error ? e.message : String(e);
    await attempt.reload();
    if (attempt.progress().status !== 'running') return true;
    await this.endTurn(attempt, [{ type: 'TurnFailed', data: { turnId: attempt.turnId, code, message, retryable } }]);
    failCurrentSpan(code, message);
    return true;
  }
}

/** The protocol the turn was requested over (the session view keeps it per open turn), for metrics. */
export function protocolOf(attempt: TurnAttempt): string {
  return attempt.sessionView().open[attempt.turnId]?.protocol ?? 'unknown';
}

/** What waits to enter the running turn at its next step boundary: steered messages and reminders to render. */
function liveInput(session: SessionState): LiveInput {
  return { steers: pendingSteers(session), reminders: pendingReminders(session).filter((r) => r.mode !== 'audit_only') };
}

/** The boundary's deliveries, recorded before the model call they precede (reminders first, then user messages). */
function deliveries(turnId: string, step: Extract<NextStep, { kind: 'deliver-input' }>): HubEvent[] {
  return [
    ...step.reminders.map((r): HubEvent => ({
      type: 'ReminderEmitted',
      data: { turnId, reminderId: r.reminderId, beforeStep: step.step, renderedRole: 'system' },
    })),
    ...step.steers.map((q): HubEvent => ({
      type: 'UserMessageInjected',
      data: { turnId, fromTurnId: q.turnId, messageId: q.request.userMessageId, text: q.request.prompt, beforeStep: step.step },
    })),
  ];
}

/** Harn `audit_only` reminders drain at loop exit: recorded with the turn, never shown to the model. */
function auditOnlyDrain(turnId: string, session: SessionState): HubEvent[] {
  return pendingReminders(session)
    .filter((r) => r.mode === 'audit_only')
    .map((r) => ({ type: 'ReminderEmitted', data: { turnId, reminderId: r.reminderId, beforeStep: null, renderedRole: null } }));
}
