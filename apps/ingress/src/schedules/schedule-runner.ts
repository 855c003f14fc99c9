import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { isDomainError, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { ScheduleTicker, scheduleActor, type ScheduledTurnRequest, type SubmitResult } from '@hub/schedules';
import { CommandService } from '../commands/command.service';
import { INGRESS_CONFIG, PG_POOL, type IngressSettings } from '../hub.providers';

/**
 * Runs the schedule ticker in this ingress (every ingress does; each due schedule is decided by
 * one of them at a time, under its row lock: ADR 0037). A tick's turn is submitted through the
 * command service like any other turn: the tenant's limits, the decision against the log, the
 * runTurn job with fair scheduling, the approval policy of the runner. Its actor is the
 * schedule; the schedule's creator and the tick's scheduled and actual start go beside it in
 * `metadata.schedule`.
 */
@Injectable()
export class ScheduleRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('schedules');
  private ticker: ScheduleTicker | null = null;

  constructor(
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly store: EventStore,
    private readonly commands: CommandService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.schedulePollMs === 0) return;
    this.ticker = new ScheduleTicker({
      pool: this.pool,
      submitter: { submit: (req) => this.submit(req) },
      facts: { append: (tenantId, streamId, events, opts) => this.store.append<HubEvent>(tenantId, streamId, events as never, opts) },
    });
    this.ticker.start(this.settings.schedulePollMs, (e) => this.log.warn(`schedule pass failed: ${(e as Error).message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ticker?.stop();
  }

  private async submit(req: ScheduledTurnRequest): Promise<SubmitResult> {
    const schedule = {
      id: req.scheduleId,
      scheduledAt: req.scheduledAt.toISOString(),
      startedAt: req.startedAt.toISOString(),
      source: req.source,
      createdBy: req.createdBy,
    };
    try {
      const outcome = await this.commands.dispatchScheduled(
        { type: 'SubmitTurn', sessionId: req.sessionId, turnId: req.turnId, prompt: req.prompt, context: req.context, busyPolicy: 'enqueue' },
        req.tenantId,
        scheduleActor(req.scheduleId, req.scheduleName),
        { protocol: 'internal', correlationId: req.commandId, commandId: req.commandId, extra: { schedule } },
      );
      return outcome.ok ? { ok: true } : { ok: false, code: outcome.code, message: outcome.message };
    } catch (e) {
      // A refusal (a tenant limit) is the tick's outcome; anything else the next pass tries again.
      if (isDomainError(e) && e.code !== 'INTERNAL' && e.code !== 'TIMEOUT') return { ok: false, code: e.code, message: e.message };
      throw e;
    }
  }
}
