import { foldTurn, type Actor, type HubEvent, type Recorded } from '@hub/domain';
import { commandRule, ruleEnv, tenantEnvRefused, type CommandRule } from '@hub/config';
import { mcpServerRefusal, type McpAllowlists } from '../mcp/mcp-pool';
import { mcpServersOf, type McpServerSpec } from '../mcp/mcp-servers';
import { TurnAttempt } from '../runtime/context';
import type { FlushPolicy } from '../runtime/model-step';
import type { RunningTurns, TurnLog, TurnScheduler } from '../runtime/ports';
import type { RunTurnInput, RunTurnOutcome } from '../runtime/turn-runner';
import type { HarnessAdapter, HarnessTurn, HarnessTurnResult } from './adapter';
import { HarnessError, TurnEndedElsewhere } from './harness-errors';
import type { HarnessProcesses } from './harness-processes';
import { externalHarnessOf, harnessExecutor, type ExternalHarnessSpec } from './harness-spec';
import { HarnessTurnWriter } from './turn-writer';

export interface ExternalTurnRunnerDeps {
  log: TurnLog;
  scheduler: TurnScheduler;
  running: RunningTurns;
  processes: HarnessProcesses;
  worker: Actor;
  /** Command prefixes a harness may run, with its environment (`HUB_HARNESS_COMMANDS`); checked again here. */
  allowlist: readonly CommandRule[];
  /**
   * Turns a recorded environment (values as `hub-secret:` references) back into values, for the
   * turn's tenant: `SecretStore.open`. Without it values are taken as recorded.
   */
  openEnv?: (tenantId: string, env: Readonly<Record<string, string>>) => Promise<Record<string, string>>;
  /**
   * The operator's MCP allowlists (`HUB_MCP_STDIO_COMMANDS`, `HUB_MCP_HTTP_URLS`): of the turn's
   * `context.mcp_servers`, only servers they allow are passed to the harness. Default: none.
   */
  mcpAllowlists?: McpAllowlists;
  /** Where a left-out MCP server is reported (default: a JSON line on stderr, as the worker logs). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
  approvalTtlMs: number;
  flush: FlushPolicy;
  /** How often a turn waiting for an approval re-reads the log (default 200 ms). */
  pollMs?: number;
  /** How long a cancelled turn waits for the harness to stop before its process is killed. */
  cancelGraceMs?: number;
  now?: () => number;
}

/** A job of `runTurn`; `reason` tells a resume (after an approval) from a start. */
export type ExternalRunTurnInput = RunTurnInput & { reason?: 'start' | 'resume' | 'recover' };

type Settled = { kind: 'done'; result: HarnessTurnResult } | { kind: 'error'; error: unknown } | { kind: 'timeout' } | { kind: 'aborted' };

/**
 * Runs a turn on an external harness process (RFC 005 `kind: "acp" | "command"`), with the same
 * `run` as the built-in `TurnRunner`. The process lives in this worker, so unlike a built-in turn
 * the job holds its slot for the whole turn, approvals included (it waits on the log); a
 * `resume` job is a no-op, and a turn that already began in a process this worker does not
 * hold cannot be continued: it fails with HARNESS_LOST rather than run twice.
 */
export class ExternalTurnRunner {
  private readonly holding = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly deps: ExternalTurnRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  async run(input: ExternalRunTurnInput): Promise<RunTurnOutcome> {
    const key = `${input.tenantId}|${input.turnId}`;
    // The job that holds the turn is waiting on the log for the approval this resume is about.
    if (input.reason === 'resume' || this.holding.has(key)) return 'stopped';
    const attempt = new TurnAttempt(this.deps.log, input.tenantId, input.sessionId, input.turnId, {
      ...input.trace,
      causationId: input.causationId,
      actor: this.deps.worker,
    });
    // Goes on from the caller's read (the worker's dispatch), reading only what followed it.
    if (input.seed) attempt.seed(input.seed.version, input.seed.events);
    await attempt.reload();
    const progress = foldTurn(attempt.events, input.turnId);
    if (progress.status !== 'running') return 'stopped';
    const writer = this.writerFor(attempt, null, new AbortController().signal);
    let spec: ExternalHarnessSpec | null;
    try {
      spec = externalHarnessOf(progress.request?.context ?? {});
    } catch (e) {
      await writer.fail('INVALID_COMMAND', `the turn's harness configuration is malformed: ${(e as Error).message}`);
      return 'failed';
    }
    if (!spec) throw new Error(`turn ${input.turnId} names no external harness`);
    let servers: McpServerSpec[];
    try {
      servers = mcpServersOf(progress.request?.context ?? {});
    } catch (e) {
      await writer.fail('INVALID_COMMAND', `the turn's mcp_servers are malformed: ${(e as Error).message}`);
      return 'failed';
    }
    if (progress.messageStarted) {
      await this.deps.processes.stop(input.tenantId, input.sessionId);
      await writer.fail(
        'HARNESS_LOST',
        `the turn began in a ${spec.name} harness process that this worker does not hold (its worker stopped or lost the job); an external harness turn cannot be continued elsewhere`,
      );
      return 'failed';
    }
    try {
      spec = { ...(await this.processSpec(spec, input.tenantId)), mcp_servers: await this.allowedServers(servers, spec, input) };
    } catch (e) {
      await writer.fail('HARNESS_NOT_ALLOWED', (e as Error).message);
      return 'failed';
    }
    this.holding.add(key);
    const abort = this.deps.running.begin(input.tenantId, input.turnId);
    try {
      return await this.drive(attempt, spec, progress.request?.prompt ?? '', abort.signal);
    } finally {
      this.deps.running.end(input.tenantId, input.turnId, abort);
      this.holding.delete(key);
    }
  }

  /**
   * The harness as it is started: only if the operator allows its command, with exactly the
   * environment the command's rule allows (fixed values, and the tenant's allowed names opened
   * from their references). Throws with the reason otherwise.
   */
  private async processSpec(spec: ExternalHarnessSpec, tenantId: string): Promise<ExternalHarnessSpec> {
    const rule = commandRule(spec.command, this.deps.allowlist);
    if (!rule) throw new Error(`harness command ${spec.command.join(' ')} is not on this worker's allowlist`);
    const refused = tenantEnvRefused(rule, spec.env_vars);
    if (refused.length > 0) throw new Error(`harness env_vars ${refused.join(', ')} may not be set for this command (HUB_HARNESS_COMMANDS, env:NAME)`);
    return { ...spec, env_vars: ruleEnv({}, rule, await this.openEnv(tenantId, spec.env_vars)) };
  }

  /**
   * The servers the operator allows, each with the environment its rule allows; each one left
   * out is reported, never silently dropped.
   */
  private async allowedServers(servers: readonly McpServerSpec[], spec: ExternalHarnessSpec, input: ExternalRunTurnInput): Promise<McpServerSpec[]> {
    const allowed = servers.filter((server) => {
      const refusal = mcpServerRefusal(server, this.deps.mcpAllowlists ?? {});
      if (refusal) this.warn(`MCP server ${server.name} is not passed to the ${spec.name} harness: ${refusal.message}`, input, spec);
      return !refusal;
    });
    return Promise.all(
      allowed.map(async (server) => {
        const rule = server.transport === 'stdio' ? commandRule(server.command, this.deps.mcpAllowlists?.stdio ?? []) : undefined;
        return server.transport === 'stdio' && rule ? { ...server, env: ruleEnv({}, rule, await this.openEnv(input.tenantId, server.env)) } : server;
      }),
    );
  }

  private openEnv(tenantId: string, env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    return this.deps.openEnv ? this.deps.openEnv(tenantId, env) : Promise.resolve({ ...env });
  }

  private warn(msg: string, input: Pick<ExternalRunTurnInput, 'tenantId' | 'sessionId' | 'turnId'>, spec: ExternalHarnessSpec): void {
    const fields = { tenantId: input.tenantId, sessionId: input.sessionId, turnId: input.turnId, harness: harnessExecutor(spec) };
    if (this.deps.warn) this.deps.warn(msg, fields);
    else process.stderr.write(`${JSON.stringify({ level: 'warn', msg, ...fields })}\n`);
  }

  private writerFor(attempt: TurnAttempt, spec: ExternalHarnessSpec | null, signal: AbortSignal): HarnessTurnWriter {
    return new HarnessTurnWriter(attempt, {
      scheduler: this.deps.scheduler,
      executor: spec ? harnessExecutor(spec) : 'harness',
      provider: spec ? `harness:${spec.kind}` : 'harness',
      model: spec ? (spec.model ?? spec.name) : 'harness',
      flush: this.deps.flush,
      approvalTtlMs: this.deps.approvalTtlMs,
      pollMs: this.deps.pollMs ?? 200,
      signal,
      now: this.now,
    });
  }

  private async drive(attempt: TurnAttempt, spec: ExternalHarnessSpec, message: string, signal: AbortSignal): Promise<RunTurnOutcome> {
    const { tenantId, sessionId, turnId } = attempt;
    const writer = this.writerFor(attempt, spec, signal);
    const history = conversationBefore(attempt.events, turnId);
    await writer.begin(history.length + 1);
    let adapter: HarnessAdapter;
    let fresh: boolean;
    try {
      ({ adapter, fresh } = await this.deps.processes.acquire(tenantId, sessionId, spec));
    } catch (e) {
      await writer.fail(e instanceof HarnessError ? e.code : 'HARNESS_START_FAILED', (e as Error).message);
      return 'failed';
    }
    // Servers the harness itself refused at start (an ACP agent without http MCP support).
    if (fresh)
      for (const left of adapter.mcpLeftOut ?? [])
        this.warn(`MCP server ${left.name} is not passed to the ${spec.name} harness: ${left.reason}`, { tenantId, sessionId, turnId }, spec);
    const turn: HarnessTurn = { sessionId, turnNumber: turnNumberOf(attempt.events, turnId), message, history: fresh ? history : [] };
    const running = adapter.sendMessageStreaming(turn, writer);
    const steering = adapter.takesSteer && adapter.steer ? this.steerWhileRunning(writer, adapter, running, { tenantId, sessionId, turnId }, spec) : null;
    const settled = await this.settle(running, writer, spec, signal);
    steering?.stop();
    return this.conclude(settled, { attempt, spec, writer, adapter, running });
  }

  /**
   * While the harness works on the turn, a `steer` queued on the session goes into it (the
   * adapter's live input) instead of waiting for the turn's end: the log is polled every `pollMs`.
   */
  private steerWhileRunning(
    writer: HarnessTurnWriter,
    adapter: HarnessAdapter,
    running: Promise<HarnessTurnResult>,
    at: { tenantId: string; sessionId: string; turnId: string },
    spec: ExternalHarnessSpec,
  ): { stop(): void } {
    let stopped = false;
    void running.finally(() => (stopped = true)).catch(() => undefined);
    const loop = async () => {
      while (!stopped) {
        await new Promise((r) => setTimeout(r, this.deps.pollMs ?? 200));
        if (stopped || writer.awaitingPerson) continue;
        try {
          await writer.deliverSteers((text) => (adapter.steer as (t: string) => Promise<void>)(text));
        } catch (e) {
          // The turn ended elsewhere or the writer broke (the runner sees that); or the agent
          // refused the message after it was recorded: say so, the turn goes on.
          if (!(e instanceof TurnEndedElsewhere)) this.warn(`steer not delivered to the ${spec.name} harness: ${(e as Error).message}`, at, spec);
          return;
        }
      }
    };
    void loop();
    return { stop: () => void (stopped = true) };
  }

  /**
   * The turn's promise against the turn budget (`session_timeout_s` of the harness's own time:
   * waiting for a person's approval does not count), a cancel and the writer's health.
   */
  private async settle(turn: Promise<HarnessTurnResult>, writer: HarnessTurnWriter, spec: ExternalHarnessSpec, signal: AbortSignal): Promise<Settled> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const budgetMs = spec.session_timeout_s * 1000;
    const started = this.now();
    const overBudget = () => !writer.awaitingPerson && this.now() - started - writer.humanWaitMs() >= budgetMs;
    try {
      return await Promise.race<Settled>([
        turn.then(
          (result) => ({ kind: 'done', result }),
          (error: unknown) => ({ kind: 'error', error }),
        ),
        writer.failure.catch((error: unknown) => ({ kind: 'error', error })),
        new Promise<Settled>((r) => (timer = setInterval(() => overBudget() && r({ kind: 'timeout' }), Math.min(250, budgetMs)))),
        new Promise<Settled>((r) => {
          onAbort = () => r({ kind: 'aborted' });
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearInterval(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  private async conclude(
    s: Settled,
    t: { attempt: TurnAttempt; spec: ExternalHarnessSpec; writer: HarnessTurnWriter; adapter: HarnessAdapter; running: Promise<HarnessTurnResult> },
  ): Promise<RunTurnOutcome> {
    const { tenantId, sessionId } = t.attempt;
    const { processes } = this.deps;
    if (s.kind === 'done') {
      try {
        await t.writer.complete(s.result.done, s.result.usage);
      } catch (e) {
        if (!(e instanceof TurnEndedElsewhere)) throw e;
        return 'stopped';
      } finally {
        processes.release(tenantId, sessionId);
      }
      return 'completed';
    }
    if (s.kind === 'aborted' || (s.kind === 'error' && s.error instanceof TurnEndedElsewhere)) {
      t.writer.abandon();
      await this.cancelInHarness(t.adapter, t.running, tenantId, sessionId);
      return 'stopped';
    }
    // Crashed, timed out, stopped or broke the protocol: the process is not trusted with the session again.
    await processes.stop(tenantId, sessionId);
    if (s.kind === 'timeout') {
      await t.writer.fail(
        'HARNESS_TIMEOUT',
        `the ${t.spec.name} harness did not finish the turn within session_timeout_s=${t.spec.session_timeout_s} (time waiting for approvals not counted); its process was stopped`,
      );
      return 'failed';
    }
    const e = s.error;
    if (e instanceof HarnessError) {
      await t.writer.fail(e.code, e.message);
      return 'failed';
    }
    await t.writer.fail('INTERNAL', `harness turn failed: ${e instanceof Error ? e.message : String(e)}`);
    return 'failed';
  }

  /** ACP `session/cancel` (command: a cancel line); a harness that does not settle in the grace is stopped. */
  private async cancelInHarness(adapter: HarnessAdapter, running: Promise<HarnessTurnResult>, tenantId: string, sessionId: string): Promise<void> {
    await adapter.cancel().catch(() => undefined);
    const grace = this.deps.cancelGraceMs ?? 5000;
    const settled = await Promise.race([
      running.then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(false), grace)),
    ]);
    if (settled) this.deps.processes.release(tenantId, sessionId);
    else await this.deps.processes.stop(tenantId, sessionId);
  }
}

/** 1-based: the how-manieth started turn of the session this is. */
function turnNumberOf(events: readonly Recorded<HubEvent>[], turnId: string): number {
  const started = events.flatMap((e) => (e.type === 'TurnStarted' ? [e.data.turnId] : []));
  const i = started.indexOf(turnId);
  return (i < 0 ? started.length : i) + 1;
}

/** The session's conversation before this turn: each completed turn's prompt and answer. */
export function conversationBefore(events: readonly Recorded<HubEvent>[], turnId: string): HarnessTurn['history'] {
  const prompts = new Map<string, string>();
  const out: HarnessTurn['history'] = [];
  for (const e of events) {
    if (e.type === 'TurnRequested') prompts.set(e.data.turnId, e.data.prompt);
    if (e.type !== 'TurnCompleted' || e.data.turnId === turnId) continue;
    const prompt = prompts.get(e.data.turnId);
    if (prompt !== undefined) out.push({ role: 'user', content: prompt }, { role: 'assistant', content: e.data.text });
  }
  return out;
}
