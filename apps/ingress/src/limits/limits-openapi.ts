import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import type { TenantLimits } from '@hub/domain';

/** What each tenant limit bounds, as the admin API documents it (docs/administration/index.md). */
const LIMIT_DOCS: Record<keyof TenantLimits, string> = {
  turnsPerMinute: 'turns submitted over every protocol together in a rolling minute',
  concurrentTurns: 'sessions running a turn at once (from the log, exactly; waiting for an approval counts)',
  tokensPerDay: "model tokens the workers counted in the tenant's current 24-hour window",
  sessions: 'sessions the tenant may have (erased ones do not count)',
  openSockets: 'WebSockets of every protocol open at once, across every ingress',
  eventBytesPerDay: "bytes of events (data + metadata as stored) the tenant's log may grow by in its current 24-hour window",
  retentionDays: 'sessions idle longer are archived and erased by `hub retention run` (not a limit on use)',
};

/** The body of `PUT /v1/admin/limits` (and the `limits` of its answers): every limit, a positive integer or null (none). */
export const ApiTenantLimitsBody = () =>
  ApiBody({
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(
        Object.entries(LIMIT_DOCS).map(([name, description]) => [
          name,
          { type: 'integer', minimum: 1, nullable: true, description: `${description}; null or absent: no limit` },
        ]),
      ),
    },
  });

/** A route that starts a turn or opens a session: a used-up tenant limit refuses it with 429 and Retry-After. */
export const ApiTenantLimited = (shape = 'problem+json `RATE_LIMITED`') =>
  applyDecorators(
    ApiResponse({
      status: 429,
      description: `A tenant limit is used up (${shape}); nothing was appended. Retry after the wait the header names.`,
      headers: { 'Retry-After': { description: 'seconds until the limit lets this through', schema: { type: 'integer', minimum: 1 } } },
    }),
  );
