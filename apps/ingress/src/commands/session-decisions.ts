import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { turnEndedScoring } from '@hub/agent';
import { sessionStreamId, type CommandMetadata, type HubCommand, type HubEvent } from '@hub/domain';
import { EventStore, SnapshotStore } from '@hub/event-store';
import { CancelBus, HarnessStopBus, HubQueues } from '@hub/queue';
import { CommandHandler, QueuedTurnWatch, SessionViews, type CommandLog, type CommandOutcome, type FollowUps } from '@hub/sessions';
import { currentCorrelationId, currentTraceparent } from '@hub/telemetry';
import { INGRESS_CONFIG, PG_POOL, type IngressSettings } from '../hub.providers';
import { SessionAccess } from '../auth/session-access';

/**
 * Commands decided where they arrive (ADR 0025): this process reads the session (its snapshot
 * plus the events after it, or only the events after the view it kept from its last decision),
 * runs the pure decider and appends the outcome with the expected version and the command id as
 * idempotency key, so two ingress processes (or a worker's approval deadline) deciding on one
 * session at once conflict and decide again, and a repeated command appends nothing. What the
 * new events call for goes to the workers: a turn to run (`runTurn`), a cancel signal.
 */
@Injectable()
export class SessionDecisions implements OnModuleInit, OnApplicationShutdown {
  private readonly views: SessionViews;
  private readonly handler: CommandHandler;
  private readonly cancels: CancelBus;
  /** Resets and erasures are broadcast on it: a kept view and the remembered opener of such a session are dropped. */
  private readonly released: HarnessStopBus;
  private readonly log = new Logger('commands');
  /** Tells a scheduled turn's watchers when no worker took it within the grace period (ADR 0033). */
  private readonly queued: QueuedTurnWatch;

  constructor(
    store: EventStore,
    queues: HubQueues,
    @Inject(PG_POOL) pool: Pool,
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
    private readonly access: SessionAccess,
  ) {
    const readStream = (tenantId: string, streamId: string, opts?: { fromVersion?: number }) => store.readStream<HubEvent>(tenantId, streamId, opts);
    this.views = new SessionViews({ readStream }, new SnapshotStore(pool), settings.snapshotEvery);
    this.cancels = new CancelBus(settings.redisUrl, settings.queuePrefix);
    this.released = new HarnessStopBus(settings.redisUrl, settings.queuePrefix);
    const trace = () => ({ correlationId: currentCorrelationId() ?? 'ingress', ...currentTraceparent() });
    const followUps: FollowUps = {
      scheduleTurn: async (tenantId, sessionId, turnId, key, reason) => {
        await queues.enqueue('runTurn', { tenantId, sessionId, turnId, reason, trace: trace() }, { key });
      },
      signalCancel: (tenantId, turnId) => this.cancels.publish(tenantId, turnId),
      // A cancelled OpenEnv turn is scored here, as the worker scores the turns it ends.
      turnEnded: turnEndedScoring(store, trace, (message) => this.log.warn(message)),
    };
    const log: CommandLog = { readStream, append: (tenantId, streamId, events, opts) => store.append<HubEvent>(tenantId, streamId, events as never, opts) };
    this.queued = new QueuedTurnWatch(log, {
      writer: 'ingress',
      // The job id comes from the tenant, session, turn and key only; the rest is the payload's shape.
      jobState: (t) =>
        queues.jobState(
          'runTurn',
          { tenantId: t.tenantId, sessionId: t.sessionId, turnId: t.turnId, reason: 'start', trace: { correlationId: t.metadata.correlationId } },
          t.key,
        ),
      warn: (message) => this.log.warn(message),
    });
    followUps.turnScheduled = (turn) => this.queued.watch(turn);
    this.handler = new CommandHandler(log, followUps, this.views);
  }

  async onModuleInit(): Promise<void> {
    // Every ingress hears it, whoever erased (this process, another one, `hub retention run`): an
    // erased id may be opened again, by another key, so what was kept of it goes.
    await this.released.listen((tenantId, sessionId) => {
      this.views.forget(tenantId, sessionStreamId(sessionId));
      this.access.forget(tenantId, sessionId);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.queued.close();
    await this.released.close();
    await this.cancels.close();
  }

  /** `whenOpened`: see CommandHandler.handle (a client key's command to a session not opened when checked). */
  decide(command: HubCommand, meta: CommandMetadata, whenOpened?: () => Promise<void>): Promise<CommandOutcome> {
    return this.handler.handle(command, meta, whenOpened);
  }
}
