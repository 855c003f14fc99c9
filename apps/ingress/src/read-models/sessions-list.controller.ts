import { Controller, Get, Param, Query } from '@nestjs/common';
import type { Principal } from '@hub/auth';
import { DomainError, Protocol, SESSION_ID_PATTERN } from '@hub/domain';
import { ReadModels, SESSION_STATUSES, TURN_STATUSES } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { limitOf, oneOf, onlyKnown, single } from './query';

/**
 * The tenant's sessions and their turns, from the read models (one projection lag behind the
 * log). Keyset pages: pass `nextCursor` back as `cursor`. Another tenant's session is a 404,
 * the same as one that does not exist.
 */
@Controller('v1/sessions')
export class SessionListController {
  constructor(private readonly reads: ReadModels) {}

  /** Most recently active first; filters `status` and `protocol` (the one that opened it). */
  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, ['limit', 'cursor', 'status', 'protocol']);
    const page = await this.reads.sessions(p.tenantId, {
      limit: limitOf(q),
      cursor: single(q, 'cursor'),
      status: oneOf(q, 'status', SESSION_STATUSES),
      openedVia: oneOf(q, 'protocol', Protocol.options),
    });
    return { sessions: page.items, nextCursor: page.nextCursor };
  }

  /** The session's turns in request order: status, timings, usage, model and how each ended. */
  @Get(':id/turns')
  async turns(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: Record<string, unknown>) {
    onlyKnown(q, ['limit', 'cursor', 'status']);
    const query = { limit: limitOf(q), cursor: single(q, 'cursor'), status: oneOf(q, 'status', TURN_STATUSES) };
    if (!SESSION_ID_PATTERN.test(id) || !(await this.reads.session(p.tenantId, id))) throw new DomainError('SESSION_NOT_FOUND', `session ${id} not found`);
    const page = await this.reads.turns(p.tenantId, id, query);
    return { sessionId: id, turns: page.items, nextCursor: page.nextCursor };
  }
}
