import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { mayDo, OWN_SESSIONS_ONLY, refusal, type Principal } from '@hub/auth';
import { DomainError, Protocol, SESSION_ID_PATTERN } from '@hub/domain';
import { ReadModels, SESSION_STATUSES, TURN_STATUSES } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { apiRef } from '../http/api-schemas';
import { SessionAccess } from '../auth/session-access';
import { SESSION_LIST_QUERY, TURN_LIST_QUERY, limitOf, oneOf, onlyKnown, single } from './query';

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
  ) {}

  /** Most recently active first; filters `status` and `protocol` (the one that opened it). */
  @ApiOperation({ summary: "The tenant's sessions (read model): ?status=&protocol=&limit=&cursor=" })
  @ApiOkResponse({ schema: apiRef('SessionList') })
  @SESSION_LIST_QUERY.document()
  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, SESSION_LIST_QUERY.names);
    if (!mayDo(p.role, 'read')) throw new DomainError('FORBIDDEN', refusal(p.role, 'read'));
    const page = await this.reads.sessions(p.tenantId, {
      limit: limitOf(q),
      cursor: single(q, 'cursor'),
      status: oneOf(q, 'status', SESSION_STATUSES),
      openedVia: oneOf(q, 'protocol', Protocol.options),
      // A client key lists the sessions it opened, nothing else.
      openedBy: OWN_SESSIONS_ONLY.has(p.role) ? p.keyPrefix : undefined,
    });
    return { sessions: page.items, nextCursor: page.nextCursor };
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
