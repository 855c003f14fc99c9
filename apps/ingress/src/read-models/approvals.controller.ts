import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Logger, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OWN_SESSIONS_ONLY, type Principal, requireGrant } from '@hub/auth';
import { DomainError, SESSION_ID_PATTERN } from '@hub/domain';
import { APPROVAL_CHANGES, APPROVAL_STATUSES, ReadModelFeed, ReadModels, type ApprovalView } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { apiRef } from '../http/api-schemas';
import { EventStreams } from '../http/event-streams';
import { SessionAccess } from '../auth/session-access';
import { APPROVAL_FEED_QUERY, APPROVAL_LIST_QUERY, limitOf, oneOf, onlyKnown, positionOf, single } from './query';

/**
 * The approval inbox: every approval of the tenant across sessions and protocols, pending or
 * resolved, and a live feed of changes (Server-Sent Events) so an inbox updates without polling.
 */
@ApiTags('approvals')
@Controller('v1/approvals')
export class ApprovalsController {
  private readonly log = new Logger('approvals');

  constructor(
    private readonly reads: ReadModels,
    private readonly feed: ReadModelFeed,
    private readonly access: SessionAccess,
    private readonly streams: EventStreams,
  ) {}

  /** Every role reads; a client key only the approvals of sessions it opened. */
  private ownerFilter(p: Principal): string | undefined {
    requireGrant(p.role, 'read');
    return OWN_SESSIONS_ONLY.has(p.role) ? p.keyPrefix : undefined;
  }

  @ApiOperation({ summary: 'Approvals of the tenant: ?status=pending|resolved' })
  @ApiOkResponse({ schema: apiRef('ApprovalList') })
  @APPROVAL_LIST_QUERY.document()
  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, APPROVAL_LIST_QUERY.names);
    const sessionId = single(q, 'sessionId');
    if (sessionId !== undefined && !SESSION_ID_PATTERN.test(sessionId))
      throw new DomainError('INVALID_COMMAND', 'sessionId: 1-128 of [A-Za-z0-9._:@-]', { field: 'sessionId' });
    const status = oneOf(q, 'status', APPROVAL_STATUSES, 'pending') as 'pending' | 'resolved';
    const page = await this.reads.approvals(p.tenantId, { status, limit: limitOf(q), cursor: single(q, 'cursor'), sessionId, openedBy: this.ownerFilter(p) });
    return { approvals: page.items, nextCursor: page.nextCursor };
  }

  /**
   * `event: approval` frames, each the approval's current state with `id:` its change position.
   * Without a cursor (`after` or `Last-Event-ID`) it starts with every pending approval; then
   * `event: ready`, then each change as the projection commits it.
   */
  @ApiOperation({ summary: 'Live approval feed (Server-Sent Events): requested and resolved approvals as they happen' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: '`event: approval` frames whose `data` is an ApprovalView and whose `id` its position; `event: ready` once the pending ones are sent',
  })
  @APPROVAL_FEED_QUERY.document()
  @Get('stream')
  async stream(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    onlyKnown(q, APPROVAL_FEED_QUERY.names);
    const own = this.ownerFilter(p) !== undefined;
    const after = positionOf(single(q, 'after') ?? req.header('last-event-id'), 'after');
    // Before the 200: a feed that cannot listen is a problem+json, not a stream that never speaks.
    await this.feed.start();
    const snapshot = after === undefined ? await this.reads.approvalSnapshot(p.tenantId) : { position: after, pending: [] };
    const stream = this.streams.open(req, res, p);
    // A client key's feed holds its own sessions' approvals only (read from the log, not the
    // sessions read model, which may not have the session yet); writes stay in change order. A
    // failed check ends the feed: the client resumes after the last id it got, so none is lost.
    let order = Promise.resolve();
    const send = (a: ApprovalView) => {
      if (!own) return stream.send('approval', a, a.position);
      order = order
        .then(async () => {
          if (await this.access.mayRead(p, a.sessionId)) stream.send('approval', a, a.position);
        })
        .catch((e: unknown) => {
          this.log.warn(`approval feed of key ${p.keyPrefix} ended: ${e instanceof Error ? e.message : String(e)}`);
          stream.end();
        });
    };
    snapshot.pending.forEach(send);
    await order;
    stream.send('ready', { position: snapshot.position });
    const watch = await this.feed.watch(APPROVAL_CHANGES, p.tenantId, snapshot.position, (changes) => changes.forEach(send));
    stream.onClose(() => watch.close());
  }
}
