import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import {
  ExternalTurnRunner,
  HarnessProcesses,
  McpPool,
  ProviderChoice,
  RecordedTools,
  TurnRunner,
  RunningTurns,
  buildMcpRegistry,
  createBuiltinRegistry,
  defaultAdapterFactory,
  externalHarnessOf,
  loadScaledFlush,
  mcpServersOf,
  turnEndedScoring,
  type ExternalRunTurnInput,
  type RunTurnOutcome,
  type TurnLog,
} from '@hub/agent';
import { isOwnDeadline, redriveOf, sessionStreamId, type CommandMetadata, type HubEvent, type Recorded, type SessionView } from '@hub/domain';
import { EventStore, asSystem, createPool, SecretStore, SnapshotStore } from '@hub/event-store';
import type { Pool } from 'pg';
import { HUB_PROJECTIONS, ProjectionThread, projectionStatus } from '@hub/projections';
import {
  AdmissionGate,
  ApprovalDeadlines,
  CancelBus,
  DailyEventBytes,
  DailyTokens,
  HarnessStopBus,
  HubQueues,
  JOBS,
  TurnReconciler,
  startWorkers,
  type ProcessorMap,
  type ReconcilerLog,
  type StartedWorkers,
} from '@hub/queue';
import { CommandHandler, QueuedTurnWatch, SessionViews, type CommandLog, type ScheduledTurn } from '@hub/sessions';
import {
  ATTR,
  observeGauge,
  oncePerScrape,
  currentSpanIds,
  contextFromTraceparent,
  currentCorrelationId,
  currentTraceparent,
  runWithCorrelation,
  runWithTenant,
  withContext,
  withSpan,
} from '@hub/telemetry';
import { DequeueProbe } from './dequeue-probe';
import { webhookService } from './webhooks';
import type { WebhookService } from '@hub/webhooks';
import { a2aPushService, type A2aPushService } from './a2a-push';
import { isRetryable } from './retryability';
import { TenantPolicies } from '@hub/policy';
import type { WorkerSettings } from './settings';

/** Everything one worker process runs: BullMQ consumers for the job catalog, and the cancel listener. */
export class HubWorker {
  readonly id = `worker-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly pool: Pool;
  private readonly store: EventStore;
  /** Sessions read as their snapshot plus the events after it (commands and turns alike). */
  private readonly views: SessionViews;
  private readonly queues: HubQueues;
  private readonly cancels: CancelBus;
  private readonly running = new RunningTurns();
  private readonly commands: CommandHandler;
  private readonly runner: TurnRunner;
  private workers: StartedWorkers | undefined;
  private readonly probe: DequeueProbe;
  /** MCP connections of the turns this process runs (OpenEnv environments' injected tools). */
  private readonly mcp: McpPool;
  /** Wrapped harness processes (RFC 005 `acp` / `command`) of the sessions this worker ran. */
  private readonly harnesses: HarnessProcesses;
  private readonly external: ExternalTurnRunner;
  private readonly harnessStops: HarnessStopBus;
  /** Each tenant's model tokens in its current day, for its `tokensPerDay` limit (checked at ingress). */
  private readonly tokens: DailyTokens;
  /** Each tenant's event bytes in its current day, for its `eventBytesPerDay` limit (checked at ingress). */
  private readonly eventBytes: DailyEventBytes;
  /** The read models' projections (on a thread of their own): every worker runs them, one is active per projection. */
  private readonly projections: ProjectionThread;
  /** Webhook deliveries from the log (issue 28): every worker runs the outbox and the dispatcher. */
  private readonly webhooks: WebhookService;
  /** A2A push notifications from the log (ADR 0036): the webhook pattern for task updates. */
  private readonly a2aPush: A2aPushService;
  private readonly log = new Logger('worker');
  /** Re-schedules turns the log says run but Redis lost (see @hub/queue's reconciler). */
  private reconciler: TurnReconciler | null = null;
  /** Holds back new turns while the event loop lags or appends back up (ADR 0028). */
  private gate: AdmissionGate | null = null;
  /** Tells the watchers of a turn started here (the next queued one, a resume) when no worker took it (ADR 0033). */
  private readonly queued: QueuedTurnWatch;

  constructor(private readonly settings: WorkerSettings) {
    this.pool = createPool(settings.databaseUrl, { max: settings.dbPoolSize });
    // Tenant-set environment values are recorded as references; they are opened for the tenant only here.
    const secrets = new SecretStore(this.pool);
    const openEnv = (tenantId: string, env: Readonly<Record<string, string>>) => secrets.open(tenantId, env);
    this.mcp = new McpPool({ stdioAllowlist: settings.mcpStdioAllowlist, httpAllowlist: settings.mcpHttpAllowlist, openEnv });
    // Every append counts towards its tenant's event bytes per day; a lost count never fails one.
    this.eventBytes = new DailyEventBytes(settings.redisUrl, settings.queuePrefix, { onError: (e) => this.log.warn(`event bytes not counted: ${e.message}`) });
    this.store = new EventStore(this.pool, { onAppended: (tenantId, bytes) => this.eventBytes.count(tenantId, bytes) });
    this.queues = new HubQueues({
      redisUrl: settings.redisUrl,
      prefix: settings.queuePrefix,
      fair: settings.fairScheduling,
      traced: settings.telemetry.exporter !== 'none',
    });
    this.cancels = new CancelBus(settings.redisUrl, settings.queuePrefix);
    this.harnessStops = new HarnessStopBus(settings.redisUrl, settings.queuePrefix);
    this.tokens = new DailyTokens(settings.redisUrl, settings.queuePrefix);
    this.harnesses = new HarnessProcesses(defaultAdapterFactory({ baseEnv: settings.harnessBaseEnv }));
    this.probe = new DequeueProbe({ redisUrl: settings.redisUrl, prefix: settings.queuePrefix }, this.id);
    this.projections = new ProjectionThread({
      databaseUrl: settings.databaseUrl,
      log: (message, error) => (error ? this.log.warn(`${message}: ${error}`) : this.log.log(message)),
    });
    this.webhooks = webhookService(this.pool, settings, (message, error) =>
      this.log.warn(error ? `${message}: ${(error as Error).message ?? String(error)}` : message),
    );
    this.a2aPush = a2aPushService(this.pool, settings, (message, error) =>
      this.log.warn(error ? `${message}: ${(error as Error).message ?? String(error)}` : message),
    );
    const readStream = (tenantId: string, streamId: string, opts?: { fromVersion?: number }) => this.store.readStream<HubEvent>(tenantId, streamId, opts);
    this.views = new SessionViews({ readStream }, new SnapshotStore(this.pool), settings.snapshotEvery);
    const log: TurnLog & CommandLog = {
      readStream,
      append: (tenantId, streamId, events, opts) => this.store.append<HubEvent>(tenantId, streamId, events as never, opts),
      saveView: (tenantId, streamId, version, view) => this.saveView(tenantId, streamId, version, view),
      keepView: (tenantId, streamId, at) =>
        this.views.keep(tenantId, streamId, { version: at.version, view: at.view, sinceSnapshot: at.sinceSaved, whole: true }),
      snapshotEvery: settings.snapshotEvery,
    };
    this.queued = new QueuedTurnWatch(log, {
      writer: 'worker',
      // The job id comes from the tenant, session, turn and key only; the rest is the payload's shape.
      jobState: (t) =>
        this.queues.jobState(
          'runTurn',
          { tenantId: t.tenantId, sessionId: t.sessionId, turnId: t.turnId, reason: 'start', trace: { correlationId: t.metadata.correlationId } },
          t.key,
        ),
      warn: (message) => this.log.warn(message),
    });
    const scheduler = this.scheduler();
    const worker = { type: 'worker' as const, id: this.id };
    // The text window widens with the turns streaming here (ADR 0031).
    const flush = loadScaledFlush(settings.flush, () => this.running.size);
    const providers = new ProviderChoice(settings.model);
    const policies = new TenantPolicies(this.store);
    this.commands = new CommandHandler(log, scheduler, this.views);
    this.runner = new TurnRunner({
      log,
      scheduler,
      running: this.running,
      provider: providers.configured,
      providerFor: (context) => providers.for(context),
      // A re-drive with recorded tools reads its source session once per job, in its own tenant.
      recordedFor: async (context, tenantId) => {
        const redrive = redriveOf(context);
        if (!redrive) return null;
        const { events } = await this.store.readStream<HubEvent>(tenantId, sessionStreamId(redrive.sourceSessionId));
        return RecordedTools.fromEvents(events as HubEvent[]);
      },
      tools: createBuiltinRegistry(),
      // A turn whose context names MCP servers gets their tools beside the built-ins, over
      // connections of its tenant only (a stateful server's session is never shared).
      toolsFor: async (context, tenantId) => {
        const servers = mcpServersOf(context);
        return servers.length ? buildMcpRegistry(servers, this.mcp, undefined, tenantId) : createBuiltinRegistry();
      },
      // The tenant's approval policy, one indexed read per job that decides a tool call (issue 23).
      policyFor: (tenantId) => policies.current(tenantId),
      worker,
      // Counted before the turn's end is recorded, so the tenant's next turn sees it (one Redis
      // round trip per model call; gathering them would let a turn start on an over-spent day).
      // Counting never fails a turn: a lost count under-counts the day, it does not stop work.
      onUsage: (tenantId, usage) =>
        this.tokens.add(tenantId, usage.totalTokens).catch((e: unknown) => this.log.warn(`token count of ${tenantId} not kept: ${(e as Error).message}`)),
      maxSteps: settings.maxSteps,
      approvalTtlMs: settings.approvalTtlMs,
      flush,
    });
    this.external = new ExternalTurnRunner({
      log,
      scheduler,
      running: this.running,
      processes: this.harnesses,
      worker,
      allowlist: settings.harnessAllowlist,
      openEnv,
      // The environment's MCP servers go to the harness only if the operator allows them.
      mcpAllowlists: { stdio: settings.mcpStdioAllowlist, http: settings.mcpHttpAllowlist },
      approvalTtlMs: settings.approvalTtlMs,
      flush,
    });
  }

  /**
   * A turn whose context names an external harness runs on it; any other on the built-in agent,
   * which goes on from the session's snapshot and the events after it (never the whole stream).
   */
  private async runTurn(input: ExternalRunTurnInput): Promise<RunTurnOutcome> {
    const streamId = sessionStreamId(input.sessionId);
    const loaded = await this.views.load(input.tenantId, streamId);
    const context = loaded.view.open[input.turnId]?.progress.request?.context;
    if (context && namesExternalHarness(context)) {
      // The harness writer folds the session's events itself: it goes on from a whole read.
      const { version, events } = await this.store.readStream<HubEvent>(input.tenantId, streamId);
      return this.external.run({ ...input, seed: { version, events: events as Recorded<HubEvent>[] } });
    }
    return this.runner.run({ ...input, seed: { version: loaded.version, events: loaded.tail, view: loaded.view, sinceSaved: loaded.sinceSnapshot } });
  }

  /** A snapshot is an optimisation: failing to write one never fails the step that asked. */
  private async saveView(tenantId: string, streamId: string, version: number, view: SessionView): Promise<void> {
    try {
      await this.views.save(tenantId, streamId, version, view);
    } catch (e) {
      this.log.warn(`snapshot of ${streamId} at ${version} not written: ${(e as Error).message}`);
    }
  }

  private scheduler() {
    const trace = () => ({ correlationId: currentCorrelationId() ?? 'worker', ...currentTraceparent() });
    return {
      scheduleTurn: async (tenantId: string, sessionId: string, turnId: string, key: string, reason: 'start' | 'resume' | 'recover') => {
        await this.queues.enqueue('runTurn', { tenantId, sessionId, turnId, reason, trace: trace() }, { key });
      },
      scheduleApprovalExpiry: async (tenantId: string, sessionId: string, approvalId: string, delayMs: number, deadlineAt?: string) => {
        await this.queues.enqueue('expireApproval', { tenantId, sessionId, approvalId, deadlineAt, trace: trace() }, { delayMs });
      },
      signalCancel: async (tenantId: string, turnId: string) => {
        this.running.cancel(tenantId, turnId);
        await this.cancels.publish(tenantId, turnId);
      },
      // An OpenEnv turn is scored once it has ended, here, after (never inside) the agent loop.
      turnEnded: turnEndedScoring(this.store, trace, (message) => this.log.warn(message)),
      turnScheduled: (turn: ScheduledTurn) => this.queued.watch(turn),
    };
  }

  private processors(): ProcessorMap {
    return {
      runTurn: (p, job) =>
        traced(p.trace, 'runTurn', { [ATTR.TENANT_ID]: p.tenantId, [ATTR.SESSION_ID]: p.sessionId, [ATTR.TURN_ID]: p.turnId }, () =>
          this.runTurn({ ...p, trace: p.trace, causationId: String(job.id), finalAttempt: isFinalAttempt(job) }),
        ),
      expireApproval: async (p) => {
        // A job for a deadline the log does not hold (its request was never appended: the turn
        // was re-driven with a later deadline) expires nothing.
        const { events } = await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(p.sessionId));
        if (!isOwnDeadline(events, p.approvalId, p.deadlineAt)) {
          this.log.log(`approval deadline ${p.deadlineAt} of ${p.approvalId} is not the one the log holds: nothing expired`);
          return;
        }
        const meta: CommandMetadata = {
          commandId: `expire:${p.sessionId}:${p.approvalId}`,
          tenantId: p.tenantId,
          now: new Date().toISOString(),
          actor: { type: 'system', id: 'approval-deadline' },
          protocol: 'internal',
          ...p.trace,
        };
        return traced(p.trace, 'expireApproval', { [ATTR.TENANT_ID]: p.tenantId }, () =>
          this.commands.handle(
            // `expired`: the approval's own `onExpiry` (allow, escalate) decides over this denial (ADR 0048).
            {
              type: 'ResolveApproval',
              sessionId: p.sessionId,
              approvalId: p.approvalId,
              decision: 'denied',
              reason: 'the approval deadline passed',
              expired: true,
            },
            meta,
          ),
        );
      },
    };
  }

  async start(): Promise<void> {
    await this.cancels.listen((tenantId, turnId) => this.running.cancel(tenantId, turnId));
    // A reset or an erased session: its harness process stops, and what this process kept of an
    // erased session's views goes (its id may start again from nothing).
    await this.harnessStops.listen((tenantId, sessionId) => {
      void this.harnesses.stop(tenantId, sessionId);
      this.views.forget(tenantId, sessionStreamId(sessionId));
    });
    this.workers = startWorkers(
      {
        redisUrl: this.settings.redisUrl,
        prefix: this.settings.queuePrefix,
        fair: this.settings.fairScheduling,
        traced: this.settings.telemetry.exporter !== 'none',
      },
      this.processors(),
      {
        concurrency: this.settings.concurrency,
        burstSlots: this.settings.burstSlots,
        lockDurationMs: this.settings.lockMs,
        isRetryable,
      },
    );
    await Promise.all(this.workers.workers.map((w) => w.waitUntilReady()));
    this.startGate(this.workers);
    await this.probe.start();
    this.startReconciler();
    await this.projections.start();
    this.webhooks.start();
    this.a2aPush.start();
    this.registerGauges();
  }

  /** The turns queue's intake follows the process's load, up to its slots and their burst. */
  private startGate(started: StartedWorkers): void {
    const turns = started.workers.filter((w) => w.name === JOBS.runTurn.queue);
    // Every fetcher of the turns queue (TURN_FETCHERS) takes its share of the slots.
    const max = turns.length > 0 ? turns.reduce((n, w) => n + w.concurrency, 0) : this.settings.concurrency;
    this.gate = new AdmissionGate(turns, () => ({ appendBacklog: this.store.appendBacklog, running: this.running.size }), {
      max,
      min: Math.min(max, GATE_MIN_TURNS),
      loopDelayMs: GATE_LOOP_DELAY_MS,
      appendBacklog: GATE_APPEND_BACKLOG,
    });
    this.gate.start();
    const gate = this.gate;
    observeGauge('hub.worker.turn_intake', 'Turns the admission gate lets this worker take at once', async () => [
      { value: gate.current, attributes: { worker: this.id } },
    ]);
  }

  /** Gauges read at each scrape of the health port's /metrics: queue depth and projection lag. */
  private registerGauges(): void {
    const names = HUB_PROJECTIONS.map((p) => p.name);
    observeGauge('hub.queue.jobs', 'Jobs in each queue, by state', async () =>
      (await this.queues.counts()).flatMap(({ queue, counts }) => Object.entries(counts).map(([state, value]) => ({ value, attributes: { queue, state } }))),
    );
    // One status read (it counts the events not applied yet) feeds both lag gauges of a scrape.
    const status = oncePerScrape(() => projectionStatus(this.pool, names));
    observeGauge(
      'hub.projection.lag.seconds',
      'Age of the oldest event a read model has not applied yet',
      async () => (await status()).map((s) => ({ value: s.lagMs / 1000, attributes: { projection: s.name } })),
      's',
    );
    observeGauge('hub.projection.lag_events', 'Events a read model has not applied yet', async () =>
      (await status()).map((s) => ({ value: s.lagEvents, attributes: { projection: s.name } })),
    );
  }

  private startReconciler(): void {
    const { redisUrl, queuePrefix, lockMs, reconcileIntervalMs } = this.settings;
    const log: ReconcilerLog = {
      query: (sql, params) => asSystem(this.pool, 'reconciler').query(sql, params),
      readStream: (t, s) => this.store.readStream<HubEvent>(t, s),
    };
    this.reconciler = new TurnReconciler({
      log,
      queues: this.queues,
      connection: { redisUrl, prefix: queuePrefix },
      quietMs: lockMs,
      lockMs: Math.max(reconcileIntervalMs, lockMs),
      onRecovered: (t) => process.stderr.write(`${JSON.stringify({ msg: 'turn recovered', worker: this.id, ...t })}\n`),
      // Approval deadlines Redis lost, from the approvals read model checked against the log (ADR 0050).
      deadlines: new ApprovalDeadlines({
        log,
        queues: this.queues,
        onRescheduled: (d) => process.stderr.write(`${JSON.stringify({ msg: 'approval deadline rescheduled', worker: this.id, ...d })}\n`),
      }),
    });
    this.reconciler.start(reconcileIntervalMs, (e) => this.log.warn(`reconcile scan failed: ${(e as Error).message}`));
  }

  /** Health: Postgres answers, and each queue's consumer is running with a live connection. */
  async health(): Promise<{ ok: boolean; checks: Record<string, { ok: boolean; error?: string }> }> {
    const checks: Record<string, { ok: boolean; error?: string }> = {};
    checks.postgres = await check(() => this.store.headPosition(PROBE_TENANT));
    // A queue with several consumers (the turns queue's fetchers) is healthy when every one runs.
    for (const w of this.workers?.workers ?? []) {
      if (checks[`queue:${w.name}`]?.ok === false) continue;
      checks[`queue:${w.name}`] = await check(async () => {
        if (!w.isRunning() || w.isPaused()) throw new Error('consumer is not running');
      });
    }
    checks.dequeue = await check(() => this.probe.roundTrip(2000));
    return { ok: Object.values(checks).every((c) => c.ok), checks };
  }

  async stop(): Promise<void> {
    this.queued.close();
    this.gate?.stop();
    await this.reconciler?.stop();
    // Harness processes first: a turn holding one ends (HARNESS_STOPPED) and frees its job.
    await this.harnesses.stopAll();
    await this.projections.stop();
    await this.webhooks.stop();
    await this.a2aPush.stop();
    await this.workers?.close();
    await this.probe.stop();
    await this.mcp.close();
    await this.harnessStops.close();
    await this.tokens.close();
    await this.eventBytes.close();
    await this.cancels.close();
    await this.queues.close();
    await this.pool.end();
  }
}

/** True when the context names an external harness, or a malformed one (the external runner fails that turn). */
function namesExternalHarness(context: Record<string, unknown>): boolean {
  try {
    return externalHarnessOf(context) !== null;
  } catch {
    return true;
  }
}

/**
 * The admission gate's bounds (ADR 0028): it never takes fewer than this many turns at once...
 */
const GATE_MIN_TURNS = 16;
/** ...closes while the event loop's p99 delay is over this (streams would stutter)... */
const GATE_LOOP_DELAY_MS = 100;
/** ...or while this many appends wait for their group commit (Postgres is behind). */
const GATE_APPEND_BACKLOG = 1000;

/** Health reads the head position of a tenant that never exists: a real query, no data. */
const PROBE_TENANT = '00000000-0000-0000-0000-000000000000';

function isFinalAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? JOBS.runTurn.attempts);
}

async function check(f: () => Promise<unknown>): Promise<{ ok: boolean; error?: string }> {
  try {
    await f();
    return { ok: true };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * Continues the trace and correlation that came through the queue, inside a span for the job:
 * under BullMQ's consumer span when BullMQ's telemetry is on (it carried the context itself),
 * else under the traceparent the payload carries.
 */
function traced<T>(
  t: { correlationId: string; traceparent?: string; tracestate?: string },
  job: string,
  attrs: Record<string, string>,
  fn: () => Promise<T>,
): Promise<T> {
  const inSpan = () => withSpan(`job ${job}`, { ...attrs, [ATTR.JOB]: job }, fn);
  const tenant = attrs[ATTR.TENANT_ID];
  const run = () => runWithCorrelation(t.correlationId, () => (tenant === undefined ? inSpan() : runWithTenant(tenant, inSpan)));
  return currentSpanIds() !== undefined ? run() : withContext(contextFromTraceparent(t.traceparent, t.tracestate), run);
}
