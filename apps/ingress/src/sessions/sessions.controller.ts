import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Inject, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { actorOf, type Principal } from '@hub/auth';
import type { Pool } from 'pg';
import { HUB_PROJECTIONS, eraseSession, waitProjected } from '@hub/projections';
import { DomainError, foldHarness, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { CommandService } from '../commands/command.service';
import { sessionParam } from './session-param';
import { liveStreamId } from '../acp/live-registry';
import { a2aPushStreamId } from '@hub/protocol-a2a';
import { PG_POOL } from '../hub.providers';
import { OpenEnvEpisodes } from '../openenv/openenv-episodes';
import { SessionAccess } from '../auth/session-access';
import { EVENTS_PAGE_QUERY, pageQuery, readPage, streamExport } from './event-pages';
import { apiRef } from '../http/api-schemas';

const Decision = z.object({ decision: z.enum(['approved', 'denied']), reason: z.string().max(2000).optional() });

/** How long an erasure's answer waits for the read models to pass its tombstone. */
const ERASE_SETTLE_MS = 5_000;

/**
 * Sessions over plain HTTP: audit export (the log itself), the current state, and answering an
 * approval (the approval inbox's write side). The list is the read model's (read-models/). Every read is the key's tenant only;
 * another tenant's session is indistinguishable from one that does not exist.
 */
@ApiTags('sessions')
@Controller('v1/sessions')
export class SessionsController {
  private readonly log = new Logger('sessions');

  constructor(
    private readonly store: EventStore,
    private readonly commands: CommandService,
    private readonly access: SessionAccess,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly episodes: OpenEnvEpisodes,
  ) {}

  private async events(p: Principal, id: string): Promise<Recorded<HubEvent>[]> {
    await this.access.check(p, sessionParam(id), 'read');
    const { events } = await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(sessionParam(id)));
    if (events.length === 0) throw new DomainError('SESSION_NOT_FOUND', `session ${id} not found`);
    return events as Recorded<HubEvent>[];
  }

  /**
   * One page of the session's events, in order, with their envelopes: `?after=<stream position>`
   * (exclusive, default 0) and `?limit=` (default 500, at most 1000). `next` is the `after` of
   * the following page (null at the end), also sent as a `Link: <…>; rel="next"` header.
   */
  @ApiOperation({ summary: "A page of a session's events (?after=&limit=)" })
  @ApiOkResponse({ schema: apiRef('EventPage') })
  @EVENTS_PAGE_QUERY.document()
  @Get(':id/events')
  async page(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res({ passthrough: true }) res: Response) {
    const q = pageQuery(query);
    await this.access.check(p, sessionParam(id), 'read');
    const page = await readPage(this.store, p.tenantId, sessionStreamId(sessionParam(id)), id, q);
    if (page.next !== null) res.setHeader('Link', `</v1/sessions/${encodeURIComponent(id)}/events?after=${page.next}&limit=${q.limit}>; rel="next"`);
    return { sessionId: id, events: page.events, next: page.next };
  }

  /** The whole log of the session as NDJSON, streamed page by page (flat memory): audit, export, replay. */
  @ApiOperation({ summary: 'The whole session as NDJSON (streamed)' })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'One stored event a line, with its hash and the previous hash (verifiable offline with `hub audit verify --file`)' })
  @Get(':id/export')
  async export(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.access.check(p, sessionParam(id), 'read');
    await streamExport(this.store, p.tenantId, sessionStreamId(sessionParam(id)), id, res);
  }

  /** The Harness transport state folded from the log, with the cursor it is current at. */
  @ApiOperation({ summary: "The session's current state (the transport's projection)" })
  @ApiOkResponse({ schema: apiRef('SessionState') })
  @Get(':id/state')
  async state(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    const events = await this.events(p, id);
    return { state: foldHarness(events).state, cursor: events[events.length - 1].globalPosition };
  }

  @ApiOperation({ summary: 'Answer an approval: approve or deny, with an optional reason; the first answer wins, or the approval that reaches its quorum' })
  @ApiOkResponse({ schema: apiRef('ApprovalAnswer') })
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
    // An approval short of its quorum (ADR 0048) leaves the call waiting: the answer says so, and how far it is.
    const voted = outcome.events.find((e) => e.type === 'ApprovalVoted')?.data as { approvals: number; required: number } | undefined;
    if (voted) return { approvalId, decision: parsed.data.decision, status: 'pending', approvals: voted.approvals, required: voted.required };
    return { approvalId, decision: parsed.data.decision, status: parsed.data.decision };
  }

  /**
   * Erases the session (admin): its events, snapshots and read-model rows. A `SessionErased`
   * tombstone on the tenant's admin stream names who did it and each erased chain's last hash.
   */
  @ApiOperation({ summary: 'Erase a session (admin): events, snapshots and read-model rows; a SessionErased tombstone records who and what' })
  @Delete(':id')
  async erase(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Req() req: { correlationId?: string }) {
    if (p.role !== 'admin') throw new DomainError('FORBIDDEN', `erasing a session needs an admin key; this key's role is ${p.role}`);
    const sessionId = sessionParam(id);
    const erased = await eraseSession(this.pool, HUB_PROJECTIONS, {
      tenantId: p.tenantId,
      sessionId,
      alsoStreams: [liveStreamId(sessionId), a2aPushStreamId(sessionId)],
      reason: 'request',
      actor: actorOf(p),
      correlationId: req.correlationId ?? randomUUID(),
    });
    // Broadcast to every ingress and worker: kept views and the remembered opener go (SessionDecisions).
    await this.episodes.releaseSession(p.tenantId, sessionId);
    // The transaction deleted the read rows, but a projection batch read before it committed can
    // write them back; they are gone for good once every read model has applied the tombstone.
    // Answer then, so a read after the 200 never shows the session (waitProjected).
    const names = HUB_PROJECTIONS.map((d) => d.name);
    if (!(await waitProjected(this.pool, names, erased.tombstoneCursor, { timeoutMs: ERASE_SETTLE_MS }))) {
      this.log.warn(
        `session ${sessionId} erased; the read models had not applied its tombstone (cursor ${erased.tombstoneCursor}) within ${ERASE_SETTLE_MS} ms and may list it until they do`,
      );
    }
    return {
      sessionId,
      erased: erased.streams.map(({ streamId, events, lastHash }) => ({ streamId, events, lastHash })),
      tombstoneCursor: erased.tombstoneCursor,
    };
  }
}
