import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdentityProviderInput, IdentityProviders, providerView, type Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { recordAdmin } from '../admin/admin-events';
import { CurrentPrincipal } from './api-key.guard';

type Req = { correlationId?: string };

function requireAdmin(p: Principal): void {
  if (p.role !== 'admin') throw new DomainError('FORBIDDEN', `the identity provider is an admin's to set; this caller's role is ${p.role}`);
}

/**
 * The tenant's identity provider (issue 24), an admin's: shown without its client secret, set as
 * a whole (a change without `clientSecret` keeps the stored one), removed. Every change is an
 * event on the tenant's admin stream naming who made it, never the secret.
 */
@ApiTags('admin')
@Controller('v1/admin/idp')
export class OidcAdminController {
  constructor(
    private readonly providers: IdentityProviders,
    private readonly store: EventStore,
  ) {}

  @ApiOperation({ summary: "This tenant's identity provider (admin), without its client secret; provider null when it has none" })
  @Get()
  async get(@CurrentPrincipal() p: Principal) {
    requireAdmin(p);
    const provider = await this.providers.get(p.tenantId);
    return { provider: provider && providerView(provider) };
  }

  @ApiOperation({ summary: "Set this tenant's identity provider (admin): {issuer, clientId, clientSecret?, audience?, name?, scopes?, groupsClaim?, groupRoles, allowedDomains?, apiKeyConsole?}" })
  @Put()
  async set(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: Req) {
    requireAdmin(p);
    const parsed = IdentityProviderInput.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DomainError('INVALID_COMMAND', `identity provider: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`, { field: issue?.path.join('.') });
    }
    const provider = await this.providers.set(p.tenantId, parsed.data);
    const { issuer, clientId, groupRoles, allowedDomains, apiKeyConsole } = provider;
    await recordAdmin(this.store, p.tenantId, [{ type: 'IdentityProviderSet', data: { issuer, clientId, hasClientSecret: provider.clientSecret !== undefined, groupRoles, allowedDomains, apiKeyConsole } }], p, req.correlationId);
    return { provider: providerView(provider) };
  }

  @ApiOperation({ summary: "Remove this tenant's own identity provider (admin); people can no longer sign in with it" })
  @Delete()
  @HttpCode(200)
  async remove(@CurrentPrincipal() p: Principal, @Req() req: Req) {
    requireAdmin(p);
    const before = await this.providers.get(p.tenantId);
    if (!before || before.source !== 'tenant' || !(await this.providers.remove(p.tenantId))) throw new NotFoundException('this tenant has no identity provider of its own');
    await recordAdmin(this.store, p.tenantId, [{ type: 'IdentityProviderRemoved', data: { issuer: before.issuer } }], p, req.correlationId);
    return { removed: true };
  }
}
