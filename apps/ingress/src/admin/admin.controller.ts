import { createHash, timingSafeEqual } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Param, Post, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyService, ROLES, bearerToken, type Principal } from '@hub/auth';
import { DomainError, TenantLimits } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { Public } from '../auth/public.decorator';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { TenantLimitsService } from '../limits/tenant-limits';
import { recordAdmin } from './admin-events';
import { ApiTenantLimitsBody } from '../limits/limits-openapi';

const NewKey = z.object({
  name: z.string().trim().min(1).max(200),
  role: z.enum(ROLES).default('operator'),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
const NewTenant = z.object({ name: z.string().trim().min(1).max(200) });

/** Only an admin key administers its tenant. */
function requireAdmin(p: Principal): void {
  if (p.role !== 'admin') throw new DomainError('FORBIDDEN', `this needs an admin key; this key's role is ${p.role}`);
}

const show = (k: { prefix: string; name: string; role: string; createdAt: Date; expiresAt: Date | null; lastUsedAt: Date | null; revokedAt: Date | null }) => ({
  prefix: k.prefix,
  name: k.name,
  role: k.role,
  createdAt: k.createdAt.toISOString(),
  expiresAt: k.expiresAt?.toISOString() ?? null,
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/**
 * The admin API. Keys: an `admin` key manages the keys of its own tenant (create with a role and
 * an optional expiry, list without secrets, revoke). Tenants: the deployment operator, with
 * `HUB_OPERATOR_KEY`, creates and lists tenants (each new tenant gets an admin key, shown once).
 * Every change is an event on the tenant's `tenant-admin` stream naming who made it.
 */
@ApiTags('admin')
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly store: EventStore,
    private readonly limits: TenantLimitsService,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  @ApiOperation({ summary: 'Create a key of this tenant (admin): {name, role, expiresAt?}; the key is shown once' })
  @Post('keys')
  async createKey(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: { correlationId?: string }) {
    requireAdmin(p);
    const parsed = NewKey.safeParse(body);
    if (!parsed.success)
      throw new DomainError(
        'INVALID_COMMAND',
        `body must be {"name", "role": ${ROLES.join('|')}, "expiresAt"?: ISO time}: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    const expiresAt = parsed.data.expiresAt === undefined ? null : new Date(parsed.data.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= Date.now()) throw new DomainError('INVALID_COMMAND', 'expiresAt must be in the future');
    const created = await this.keys.createKey(p.tenantId, parsed.data.name, { role: parsed.data.role, expiresAt });
    await recordAdmin(
      this.store,
      p.tenantId,
      [
        {
          type: 'ApiKeyCreated',
          data: { keyPrefix: created.keyPrefix, name: parsed.data.name, role: created.role, expiresAt: expiresAt?.toISOString() ?? null },
        },
      ],
      p,
      req.correlationId,
    );
    return { apiKey: created.apiKey, prefix: created.keyPrefix, name: parsed.data.name, role: created.role, expiresAt: expiresAt?.toISOString() ?? null };
  }

  @ApiOperation({ summary: "This tenant's keys without secrets: prefix, name, role, created, expires, last used, revoked (admin)" })
  @Get('keys')
  async listKeys(@CurrentPrincipal() p: Principal) {
    requireAdmin(p);
    return { keys: (await this.keys.listKeys(p.tenantId)).map(show) };
  }

  @ApiOperation({ summary: 'Revoke a key of this tenant by its prefix (admin); its open sockets and event streams close within seconds' })
  @Delete('keys/:prefix')
  @HttpCode(200)
  async revokeKey(@CurrentPrincipal() p: Principal, @Param('prefix') prefix: string, @Req() req: { correlationId?: string }) {
    requireAdmin(p);
    // Another tenant's key is "not found", exactly like a key that does not exist.
    if (!(await this.keys.revoke(prefix, new Date(), p.tenantId))) throw new NotFoundException(`no live key ${prefix.slice(0, 40)} in this tenant`);
    await recordAdmin(this.store, p.tenantId, [{ type: 'ApiKeyRevoked', data: { keyPrefix: prefix } }], p, req.correlationId);
    return { prefix, revoked: true };
  }

  @ApiOperation({
    summary:
      "This tenant's limits (admin): {limits: {turnsPerMinute, concurrentTurns, tokensPerDay, sessions, openSockets, eventBytesPerDay, retentionDays}}, each a number or null",
  })
  @Get('limits')
  async getLimits(@CurrentPrincipal() p: Principal) {
    requireAdmin(p);
    this.limits.forget(p.tenantId);
    return { limits: await this.limits.limitsOf(p.tenantId) };
  }

  @ApiOperation({ summary: "Set this tenant's limits (admin), the whole set; null or absent: no limit. In force on every ingress within 2 s" })
  @ApiTenantLimitsBody()
  @Put('limits')
  async setLimits(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: { correlationId?: string }) {
    requireAdmin(p);
    const parsed = TenantLimits.strict().safeParse(body);
    if (!parsed.success)
      throw new DomainError(
        'INVALID_COMMAND',
        `body must be {"turnsPerMinute", "concurrentTurns", "tokensPerDay", "sessions", "openSockets", "eventBytesPerDay", "retentionDays"}, each a positive integer or null: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
      );
    await recordAdmin(this.store, p.tenantId, [{ type: 'TenantLimitsSet', data: { limits: parsed.data } }], p, req.correlationId);
    this.limits.forget(p.tenantId);
    return { limits: parsed.data };
  }

  @ApiOperation({ summary: 'Create a tenant (deployment operator key): {name}; returns its first admin key, shown once' })
  @Public()
  @Post('tenants')
  async createTenant(@Body() body: unknown, @Req() req: { headers: Record<string, string | string[] | undefined>; correlationId?: string }) {
    this.requireOperator(req.headers.authorization);
    const parsed = NewTenant.safeParse(body);
    if (!parsed.success) throw new DomainError('INVALID_COMMAND', 'body must be {"name": 1-200 characters}');
    const created = await this.keys.createTenant(parsed.data.name);
    const operator = { type: 'system' as const, id: 'operator' };
    await recordAdmin(
      this.store,
      created.tenantId,
      [
        { type: 'TenantCreated', data: { tenantId: created.tenantId, name: parsed.data.name } },
        { type: 'ApiKeyCreated', data: { keyPrefix: created.keyPrefix, name: 'default', role: 'admin', expiresAt: null } },
      ],
      operator,
      req.correlationId,
    );
    return { tenantId: created.tenantId, name: parsed.data.name, apiKey: created.apiKey, keyPrefix: created.keyPrefix };
  }

  @ApiOperation({ summary: 'List tenants (deployment operator key)' })
  @Public()
  @Get('tenants')
  async listTenants(@Req() req: { headers: Record<string, string | string[] | undefined> }) {
    this.requireOperator(req.headers.authorization);
    return { tenants: (await this.keys.listTenants()).map((t) => ({ tenantId: t.id, name: t.name, createdAt: t.createdAt.toISOString() })) };
  }

  /** The operator key, compared in constant time; without HUB_OPERATOR_KEY the routes do not exist. */
  private requireOperator(header: string | string[] | undefined): void {
    const expected = this.settings.operatorKey;
    if (expected === undefined) throw new NotFoundException('tenant administration over HTTP is off (no HUB_OPERATOR_KEY)');
    const presented = bearerToken(header);
    if (presented === undefined) throw new DomainError('UNAUTHENTICATED', 'missing operator key: send Authorization: Bearer <HUB_OPERATOR_KEY>');
    const digest = (v: string) => createHash('sha256').update(v).digest();
    if (!timingSafeEqual(digest(presented), digest(expected))) throw new DomainError('FORBIDDEN', 'not the operator key');
  }
}
