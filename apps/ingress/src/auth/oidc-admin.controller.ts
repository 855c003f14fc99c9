import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { IdentityProviderInput, IdentityProviders, PersonSessions, providerView, type Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { recordAdmin } from '../admin/admin-events';
import { CurrentPrincipal } from './api-key.guard';

type Req = { correlationId?: string };

const Revocation = z.union([z.object({ sub: z.string().min(1).max(500) }).strict(), z.object({ all: z.literal(true) }).strict()]);

function requireAdmin(p: Principal): void {
  if (p.role !== 'admin') throw new DomainError('FORBIDDEN', `the identity provider is an admin's to set; this caller's role is ${p.role}`);
}

/**
 * The tenant's identity provider (issue 24), an admin's: shown without its client secret, set as
 * a whole (a change without `clientSecret` keeps the stored one), removed. Every change is an
 * event on the tenant's admin stream naming who made it, never the secret. An admin also lists
 * people's console sessions and ends them (at once: every cookie request reads its session).
 */
@ApiTags('admin')
@Controller('v1/admin/idp')
export class OidcAdminController {
  constructor(
    private readonly providers: IdentityProviders,
    private readonly sessions: PersonSessions,
    private readonly store: EventStore,
  ) {}

  @ApiOperation({ summary: "This tenant's identity provider (admin), without its client secret; provider null when it has none" })
  @Get()
  async get(@CurrentPrincipal() p: Principal) {
    requireAdmin(p);
    const provider = await this.providers.get(p.tenantId);
    return { provider: provider && providerView(provider) };
  }

  @ApiOperation({
    summary:
      "Set this tenant's identity provider (admin): {issuer, clientId, clientSecret?, audience?, name?, scopes?, groupsClaim?, groupRoles, allowedDomains?, apiKeyConsole?}",
  })
  @Put()
  async set(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: Req) {
    requireAdmin(p);
    const parsed = IdentityProviderInput.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DomainError('INVALID_COMMAND', `identity provider: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`, {
        field: issue?.path.join('.'),
      });
    }
    const provider = await this.providers.set(p.tenantId, parsed.data);
    const { issuer, clientId, groupRoles, allowedDomains, apiKeyConsole } = provider;
    await recordAdmin(
      this.store,
      p.tenantId,
      [
        {
          type: 'IdentityProviderSet',
          data: { issuer, clientId, hasClientSecret: provider.clientSecret !== undefined, groupRoles, allowedDomains, apiKeyConsole },
        },
      ],
      p,
      req.correlationId,
    );
    return { provider: providerView(provider) };
  }

  @ApiOperation({ summary: "Remove this tenant's own identity provider (admin); people can no longer sign in with it" })
  @Delete()
  @HttpCode(200)
  async remove(@CurrentPrincipal() p: Principal, @Req() req: Req) {
    requireAdmin(p);
    const before = await this.providers.get(p.tenantId);
    if (!before || before.source !== 'tenant' || !(await this.providers.remove(p.tenantId)))
      throw new NotFoundException('this tenant has no identity provider of its own');
    await recordAdmin(this.store, p.tenantId, [{ type: 'IdentityProviderRemoved', data: { issuer: before.issuer } }], p, req.correlationId);
    return { removed: true };
  }

  @ApiOperation({ summary: "Signed-in people's console sessions of this tenant (admin), newest first; a person's with ?sub=" })
  @ApiQuery({ name: 'sub', required: false })
  @Get('sessions')
  async listSessions(@CurrentPrincipal() p: Principal, @Query('sub') sub?: string) {
    requireAdmin(p);
    return { sessions: await this.sessions.list(p.tenantId, sub || null) };
  }

  @ApiOperation({ summary: "End a person's console sessions ({sub}) or everyone's ({all: true}) (admin): refused from their next request on" })
  @Post('sessions/revoke')
  @HttpCode(200)
  async revokeSessions(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: Req) {
    requireAdmin(p);
    const parsed = Revocation.safeParse(body);
    if (!parsed.success) throw new DomainError('INVALID_COMMAND', 'body must be {"sub": "<the person\'s subject>"} or {"all": true}');
    const sub = 'sub' in parsed.data ? parsed.data.sub : null;
    const count = await this.sessions.revoke(p.tenantId, sub);
    await recordAdmin(this.store, p.tenantId, [{ type: 'PersonSessionsRevoked', data: { sub, count } }], p, req.correlationId);
    return { revoked: count };
  }
}
