import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BUILTIN_TOOLS } from '@hub/agent';
import type { Principal } from '@hub/auth';
import { EventStore } from '@hub/event-store';
import { AGENT_CARD_PATH, A2A_VERSION_HEADER, agentCard } from '@hub/protocol-a2a';
import { failRequestSpans } from '@hub/telemetry';
import { AddressGuard } from '@hub/webhooks';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { SessionAccess } from '../auth/session-access';
import { CommandService } from '../commands/command.service';
import { EventStreams } from '../http/event-streams';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { ApiTenantLimited } from '../limits/limits-openapi';
import { SessionStreams } from '../streams/session-streams.service';
import { TurnOutcomes } from '../streams/turn-outcome.service';
import { A2aExceptionFilter } from './a2a-errors';
import { streamTask } from './a2a-task-stream';
import { A2aExchange } from './a2a.exchange';

/** The hub's version, as the card states it (the API document's too). */
const HUB_VERSION = '0.1.0';

/**
 * A2A v1.0 over JSON-RPC (libs/protocol/a2a/README.md, README "A2A"): the agent card at
 * `GET /v1/a2a/.well-known/agent-card.json` and every method at `POST /v1/a2a`, a streaming
 * method answered over SSE. Every error is a JSON-RPC error.
 */
@ApiTags('a2a')
@Controller('v1/a2a')
@UseFilters(A2aExceptionFilter)
export class A2aController {
  private readonly exchange: A2aExchange;

  constructor(
    commands: CommandService,
    outcomes: TurnOutcomes,
    store: EventStore,
    access: SessionAccess,
    private readonly streams: SessionStreams,
    private readonly sse: EventStreams,
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
  ) {
    this.exchange = new A2aExchange(commands, outcomes, store, access, AddressGuard.fromSetting(settings.webhooks.allowedNetworks));
  }

  /** Behind the API key like every route (the guard): its skills are the tenant's agent's. */
  @ApiOperation({ summary: 'The A2A agent card: the JSON-RPC interface (A2A 1.0), bearer security, a skill per tool of the agent' })
  @Get(AGENT_CARD_PATH)
  card(@Req() req: Request) {
    const url = `${req.protocol}://${req.get('host') ?? 'localhost'}/v1/a2a`;
    return agentCard({
      url,
      version: HUB_VERSION,
      tools: BUILTIN_TOOLS.map((t) => ({ name: t.name, description: t.description, policy: t.policy, executor: t.executor })),
    });
  }

  @ApiOperation({ summary: 'One A2A JSON-RPC request (SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask, ListTasks...)' })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiTenantLimited('JSON-RPC error -32052 (RATE_LIMITED) with HTTP 429')
  @Post()
  @HttpCode(200)
  async rpc(
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request & { correlationId?: string },
    @Res() res: Response,
  ): Promise<void> {
    const answer = await this.exchange.handle(body, principal, {
      correlationId: req.correlationId ?? '',
      version: req.header(A2A_VERSION_HEADER),
      lastEventId: req.header('last-event-id'),
    });
    if (answer.kind === 'stream')
      return streamTask(this.streams, principal.tenantId, answer.ref, answer.rpcId, () => this.sse.open(req, res, principal), answer.opts);
    // A refusal answered in the protocol's own shape is still a failed request (issue 17).
    if (answer.error) failRequestSpans(answer.error.kind, answer.error.message);
    if (answer.retryAfterS !== undefined) res.setHeader('Retry-After', String(answer.retryAfterS));
    if (answer.httpStatus === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="harness-hub"');
    res.status(answer.httpStatus).type('application/json').send(JSON.stringify(answer.body));
  }
}
