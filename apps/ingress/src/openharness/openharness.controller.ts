import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Inject, OnModuleDestroy, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@hub/auth';
import { EventStore } from '@hub/event-store';
import { failRequestSpans } from '@hub/telemetry';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { CommandService } from '../commands/command.service';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { TurnOutcomes } from '../streams/turn-outcome.service';
import { OpenHarnessExceptionFilter, sendReply } from './openharness-errors';
import { OpenHarnessExchange } from './openharness.exchange';
import { ReplyCache } from './reply-cache';
import { ApiTenantLimited } from '../limits/limits-openapi';
import { SessionAccess } from '../auth/session-access';

/**
 * `POST /v1/openharness` — OpenHarness v1 (specs/openharness-protocol-v1.md) plus our profile
 * (libs/protocol/openharness/README.md). JSON in, JSON out; every error in the spec's shape.
 */
@ApiTags('openharness')
@Controller('v1/openharness')
@UseFilters(OpenHarnessExceptionFilter)
export class OpenHarnessController implements OnModuleDestroy {
  private readonly exchange: OpenHarnessExchange;

  constructor(commands: CommandService, outcomes: TurnOutcomes, store: EventStore, access: SessionAccess, @Inject(INGRESS_CONFIG) config: IngressSettings) {
    this.exchange = new OpenHarnessExchange(commands, outcomes, store, new ReplyCache(config.redisUrl, config.queuePrefix), access);
  }

  async onModuleDestroy(): Promise<void> {
    await this.exchange.close();
  }

  @ApiOperation({ summary: 'One OpenHarness v1 request (collect, resolve, cancel...)' })
  @ApiTenantLimited('OpenHarness `rate_limited`, retryable, with `details.retry_after_ms`')
  @Post()
  async handle(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const startedAt = performance.now();
    const { reply, correlationId } = await this.exchange.handle(body, principal, { correlationHeader: req.header('x-correlation-id'), startedAt });
    // A refusal answered in the protocol's own shape is still a failed request (issue 17).
    const error = reply.body.response.status === 'error' ? reply.body.response.error : undefined;
    if (error) failRequestSpans(error.code, error.message ?? error.code);
    sendReply(res, reply, correlationId);
  }
}
