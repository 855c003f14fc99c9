import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OWN_SESSIONS_ONLY, type Principal, requireGrant } from '@hub/auth';
import { DomainError, Protocol, SESSION_ID_PATTERN } from '@hub/domain';
import { ReadModelFeed, ReadModels, SESSION_STATUSES, TURN_STATUSES, sessionChanges } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { apiRef } from '../http/api-schemas';
import { SessionAccess } from '../auth/session-access';
import { SESSION_FEED_QUERY, SESSION_LIST_QUERY, TURN_LIST_QUERY, limitOf, oneOf, onlyKnown, positionOf, single } from './query';
import { EventStreams } from '../http/event-streams';
import { LaggingReads } from './lagging-reads';

/**
 * The tenant's sessions and their turns, from the read models (one projection lag behind the
 * log). Keyset pages: pass `nextCursor` back as `cursor`. Another tenant's session is a 404,
 * the same as one that does not exist.
 */
@ApiTags('sessions')
@Controller('v1/sessions')
export class SessionListController {
  constructor(
    private readonly reads: ReadModels,
    private readonly access: SessionAccess,
    private readonly feed: ReadModelFeed,
    private readonly streams: EventStreams,
    private readonly lagging: LaggingReads,
  ) {}

  /** Most recently active first; filters `status` and `protocol` (the one that opened it). */
  @ApiOperation({ summary: "The tenant's sessions (read model): ?status=&protocol=&limit=&cursor=" })
  @ApiOkResponse({ schema: apiRef('SessionList') })
  @SESSION_LIST_QUERY.document()
  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, SESSION_LIST_QUERY.names);
    requireGrant(p.role, 'read');
    // May read a standby (HUB_READ_DATABASE_URL): a list a person looks at, never read before a write.
    const page = await this.lagging.models.sessions(p.tenantId, {
      limit: limitOf(q),
      cursor: single(q, 'cursor'),
      status: oneOf(q, 'status', SESSION_STATUSES),
      openedVia: oneOf(q, 'protocol', Protocol.options),
      // A client key lists the sessions it opened, nothing else.
      openedBy: OWN_SESSIONS_ONLY.has(p.role) ? p.keyPrefix : undefined,
    });
    return { sessions: page.items, nextCursor: page.nextCursor };
  }

  /**
   * `event: session` frames, each a session's row as the list shows it, with `id:` its position,
   * whenever it moves (opened, a turn starts or ends, an approval is raised or answered...).
   * Starts with `event: ready` naming where it starts: at `after` (or `Last-Event-ID`), else at
   * the tenant's newest session. Filters are the client's to apply. An erased session (by
   * `DELETE /v1/sessions/ID` or retention) comes as `event: erased` with its id, in position
   * order after its last row. A client key's feed holds the sessions it opened only, and no erasures.
   */
  @ApiOperation({ summary: "Live sessions feed (Server-Sent Events): each of the tenant's sessions as it changes" })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description:
      '`event: ready` with the starting position, then `event: session` frames whose `data` is a SessionView and `event: erased` frames whose `data` is `{sessionId, erasedAt, position}`, each with `id` its position',
  })
  @SESSION_FEED_QUERY.document()
  @Get('stream')
  async stream(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    onlyKnown(q, SESSION_FEED_QUERY.names);
    requireGrant(p.role, 'read');
    const after = positionOf(single(q, 'after') ?? req.header('last-event-id'), 'after');
    // Before the 200: a feed that cannot listen is a problem+json, not a stream that never speaks.
    await this.feed.start();
    const start = after ?? (await this.reads.sessionHead(p.tenantId));
    const stream = this.streams.open(req, res, p);
    stream.send('ready', { position: start });
    const source = sessionChanges(OWN_SESSIONS_ONLY.has(p.role) ? p.keyPrefix : undefined);
    const watch = await this.feed.watch(source, p.tenantId, start, (changes) => changes.forEach((c) => stream.send(c.event, c.data, c.data.position)));
    stream.onClose(() => watch.close());
  }

  /** The session's turns in request order: status, timings, usage, model and how each ended. */
  @ApiOperation({ summary: "A session's turns (read model)" })
  @ApiOkResponse({ schema: apiRef('TurnList') })
  @TURN_LIST_QUERY.document()
  @Get(':id/turns')
  async turns(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: Record<string, unknown>) {
    onlyKnown(q, TURN_LIST_QUERY.names);
    const query = { limit: limitOf(q), cursor: single(q, 'cursor'), status: oneOf(q, 'status', TURN_STATUSES) };
    if (!SESSION_ID_PATTERN.test(id) || !(await this.reads.session(p.tenantId, id))) throw new DomainError('SESSION_NOT_FOUND', `session ${id} not found`);
    await this.access.check(p, id, 'read');
    const page = await this.reads.turns(p.tenantId, id, query);
    return { sessionId: id, turns: page.items, nextCursor: page.nextCursor };
  }
}
