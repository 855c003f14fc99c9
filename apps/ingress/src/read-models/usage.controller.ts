import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Query } from '@nestjs/common';
import { OWN_SESSIONS_ONLY, type Principal, requireGrant } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { readUsage } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { apiRef } from '../http/api-schemas';
import { LaggingReads } from './lagging-reads';
import { onlyKnown, single } from './query';
import { USAGE_QUERY, usageRange } from './usage.query';

/**
 * The tenant's usage per API key and UTC day, from the usage read model (ADR 0043): turns by
 * outcome, model calls, tokens, tool calls by executor, approvals and their wait. Durable and
 * queryable after the fact, where `/metrics` counts since the process started.
 */
@ApiTags('usage')
@Controller('v1/usage')
export class UsageController {
  /** May read a standby (HUB_READ_DATABASE_URL): usage is summed after the fact. */
  constructor(private readonly lagging: LaggingReads) {}

  /** Every role reads; a client key only its own turns. */
  @ApiOperation({ summary: "The tenant's usage per key and day (read model): ?from=&to=&key=" })
  @ApiOkResponse({ schema: apiRef('UsageReport') })
  @USAGE_QUERY.document()
  @Get()
  async usage(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, USAGE_QUERY.names);
    requireGrant(p.role, 'read');
    const range = usageRange(q);
    let key = single(q, 'key');
    if (OWN_SESSIONS_ONLY.has(p.role)) {
      if (key !== undefined && key !== p.keyPrefix) throw new DomainError('FORBIDDEN', `a ${p.role} key reads its own usage only`);
      key = p.keyPrefix;
    }
    if (key !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(key)) throw new DomainError('INVALID_COMMAND', 'key: a key prefix', { field: 'key' });
    return readUsage(this.lagging.pool, p.tenantId, { ...range, key });
  }
}
