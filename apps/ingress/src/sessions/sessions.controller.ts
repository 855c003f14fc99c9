import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/api-key.guard';
import type { Principal } from '@hub/auth';
import { DomainError, SESSION_ID_PATTERN, foldHarness, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { CommandService } from '../commands/command.service';
import { pageQuery, readPage, streamExport } from './event-pages';

const Decision = z.object({ decision: z.enum(['approved', 'denied']), reason: z.string().max(2000).optional() });

function sessionParam(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) throw new DomainError('INVALID_COMMAND', 'session id: 1-128 of [A-Za-z0-9._:@-]');
  return id;
}

/**
 * Sessions over plain HTTP: audit export (the log itself), the current state, and answering an
 * approval (the approval inbox's write side). The list is the read model's (read-models/). Every read is the key's tenant only;
 * another tenant's session is indistinguishable from one that does not exist.
 */
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly store: EventStore,
    private readonly commands: CommandService,
  ) {}

  private async events(p: Principal, id: string): Promise<Recorded<HubEvent>[]> {
    const { events } = await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(sessionParam(id)));
    if (events.length === 0) throw new DomainError('SESSION_NOT_FOUND', `session ${id} not found`);
    return events as Recorded<HubEvent>[];
  }

  /**
   * One page of the session's events, in order, with their envelopes: `?after=<stream position>`
   * (exclusive, default 0) and `?limit=` (default 500, at most 1000). `next` is the `after` of
   * the following page (null at the end), also sent as a `Link: <…>; rel="next"` header.
   */
  @Get(':id/events')
  async page(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res({ passthrough: true }) res: Response) {
    const q = pageQuery(query);
    const page = await readPage(this.store, p.tenantId, sessionStreamId(sessionParam(id)), id, q);
    if (page.next !== null) res.setHeader('Link', `</v1/sessions/${encodeURIComponent(id)}/events?after=${page.next}&limit=${q.limit}>; rel="next"`);
    return { sessionId: id, events: page.events, next: page.next };
  }

  /** The whole log of the session as NDJSON, streamed page by page (flat memory): audit, export, replay. */
  @Get(':id/export')
  async export(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await streamExport(this.store, p.tenantId, sessionStreamId(sessionParam(id)), id, res);
  }

  /** The Harness transport state folded from the log, with the cursor it is current at. */
  @Get(':id/state')
  async state(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    const events = await this.events(p, id);
    return { state: foldHarness(events).state, cursor: events[events.length - 1].globalPosition };
  }

  @Post(':id/approvals/:approvalId')
  @HttpCode(200)
  async resolve(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Param('approvalId') approvalId: string,
    @Body() body: unknown,
    @Req() req: { correlationId?: string },
  ) {
    const parsed = Decision.safeParse(body);
    if (!parsed.success) throw new DomainError('INVALID_COMMAND', 'body must be {"decision": "approved"|"denied", "reason"?: string}');
    const outcome = await this.commands.dispatch(
      { type: 'ResolveApproval', sessionId: sessionParam(id), approvalId, decision: parsed.data.decision, reason: parsed.data.reason ?? null },
      p,
      { protocol: 'internal', correlationId: req.correlationId ?? randomUUID(), commandId: randomUUID() },
    );
    if (!outcome.ok) throw new DomainError(outcome.code, outcome.message);
    return { approvalId, decision: parsed.data.decision };
  }
}
