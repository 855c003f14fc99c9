import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { AddressGuard, WebhookDeliveries, WebhookEndpoints, type EndpointView } from '@hub/webhooks';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { recordAdmin } from '../admin/admin-events';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { EndpointChange, LinkSettings, NewEndpoint, Redelivery, Rotation, checkUrl, parse } from './webhook-input';

type Req = { correlationId?: string };

/** Admin and operator keys manage a tenant's webhooks; viewer and approver keys read them; client keys neither. */
function may(p: Principal, what: 'read' | 'manage'): void {
  const ok = what === 'manage' ? p.role === 'admin' || p.role === 'operator' : p.role !== 'client';
  if (!ok)
    throw new DomainError(
      'FORBIDDEN',
      `this key's role (${p.role}) may not ${what} webhooks; roles that may: ${what === 'manage' ? 'admin, operator' : 'admin, operator, approver, viewer'}`,
    );
}

function found<T>(v: T | null | false, id: string): T {
  if (v === null || v === false) throw new NotFoundException(`no webhook endpoint ${id.slice(0, 64)} in this tenant`);
  return v;
}

function limitOf(raw: unknown): number {
  if (raw === undefined) return 50;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new DomainError('INVALID_COMMAND', 'limit: an integer from 1 to 500', { field: 'limit' });
  return n;
}

/**
 * Outbound webhooks (issue 28): a tenant's endpoints, their secrets, their delivery log and
 * redelivery. Every change is an event on the tenant's admin stream naming who made it; a
 * secret is shown once, when it is made. Deliveries themselves are the workers' (@hub/webhooks).
 */
@ApiTags('webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  private readonly guard: AddressGuard;

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: WebhookDeliveries,
    private readonly store: EventStore,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {
    this.guard = AddressGuard.fromSetting(settings.webhooks.allowedNetworks);
  }

  @ApiOperation({ summary: 'Make an endpoint (admin, operator): {url, events, description?}; answers its id and its whsec_ secret, shown once' })
  @Post()
  async create(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: Req) {
    may(p, 'manage');
    const input = parse(NewEndpoint, body, 'new');
    const url = await checkUrl(input.url, this.guard);
    const { endpoint, secret } = await this.endpoints.create(p.tenantId, { url, events: input.events, description: input.description ?? null });
    await recordAdmin(
      this.store,
      p.tenantId,
      [{ type: 'WebhookEndpointCreated', data: { endpointId: endpoint.id, url, events: input.events } }],
      p,
      req.correlationId,
    );
    return { id: endpoint.id, secret, endpoint };
  }

  @ApiOperation({ summary: "The tenant's endpoints, without secrets" })
  @Get()
  async list(@CurrentPrincipal() p: Principal): Promise<{ endpoints: EndpointView[] }> {
    may(p, 'read');
    return { endpoints: await this.endpoints.list(p.tenantId) };
  }

  @ApiOperation({ summary: 'One endpoint, without its secret: enabled, why it was disabled, failing since' })
  @Get(':id')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    may(p, 'read');
    return found(await this.endpoints.get(p.tenantId, id), id);
  }

  @ApiOperation({ summary: 'Change an endpoint (admin, operator): {url?, events?, description?, enabled?}; enabling clears why it was disabled' })
  @Patch(':id')
  async update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown, @Req() req: Req) {
    may(p, 'manage');
    const change = parse(EndpointChange, body, 'change');
    const url = change.url === undefined ? undefined : await checkUrl(change.url, this.guard);
    const endpoint = found(await this.endpoints.update(p.tenantId, id, { ...change, url }), id);
    await recordAdmin(
      this.store,
      p.tenantId,
      [{ type: 'WebhookEndpointUpdated', data: { endpointId: id, changes: { ...change, ...(url ? { url } : {}) } } }],
      p,
      req.correlationId,
    );
    return endpoint;
  }

  @ApiOperation({ summary: 'Remove an endpoint and its delivery log (admin, operator)' })
  @Delete(':id')
  @HttpCode(200)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Req() req: Req) {
    may(p, 'manage');
    found(await this.endpoints.remove(p.tenantId, id), id);
    await recordAdmin(this.store, p.tenantId, [{ type: 'WebhookEndpointDeleted', data: { endpointId: id } }], p, req.correlationId);
    return { id, deleted: true };
  }

  @ApiOperation({
    summary: 'Rotate the secret (admin, operator): {overlapSeconds?}; the new secret is shown once, the old one signs too until the overlap ends',
  })
  @Post(':id/rotate')
  @HttpCode(200)
  async rotate(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown, @Req() req: Req) {
    may(p, 'manage');
    const { overlapSeconds } = parse(Rotation, body, 'rotate');
    const overlapMs = overlapSeconds === undefined ? this.settings.webhooks.rotationOverlapMs : overlapSeconds * 1000;
    const rotated = found(await this.endpoints.rotate(p.tenantId, id, overlapMs), id);
    await recordAdmin(
      this.store,
      p.tenantId,
      [{ type: 'WebhookSecretRotated', data: { endpointId: id, previousSecretExpiresAt: rotated.previousSecretExpiresAt } }],
      p,
      req.correlationId,
    );
    return { id, ...rotated };
  }

  @ApiOperation({ summary: 'Send a webhook.test message to the endpoint (admin, operator); answers its webhook-id' })
  @Post(':id/test')
  @HttpCode(202)
  async test(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    may(p, 'manage');
    found(await this.endpoints.get(p.tenantId, id), id);
    return { messageId: await this.deliveries.sendTest(p.tenantId, id) };
  }

  @ApiOperation({ summary: "The endpoint's delivery log, newest first: each attempt's outcome, response status, latency and next attempt" })
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 50' })
  @ApiQuery({ name: 'before', required: false, description: 'an ISO time: attempts started before it (the next page)' })
  @ApiQuery({ name: 'messageId', required: false, description: "one message's attempts" })
  @Get(':id/attempts')
  async attempts(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: Record<string, unknown>) {
    may(p, 'read');
    found(await this.endpoints.get(p.tenantId, id), id);
    const before = typeof q.before === 'string' ? q.before : undefined;
    if (before !== undefined && Number.isNaN(Date.parse(before))) throw new DomainError('INVALID_COMMAND', 'before: an ISO time', { field: 'before' });
    const messageId = typeof q.messageId === 'string' ? q.messageId : undefined;
    return { attempts: await this.deliveries.attempts(p.tenantId, id, { limit: limitOf(q.limit), before, messageId }) };
  }

  @ApiOperation({ summary: "The endpoint's messages, newest first: status (pending, succeeded, failed), attempts, next attempt, payload" })
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 50' })
  @Get(':id/messages')
  async messages(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: Record<string, unknown>) {
    may(p, 'read');
    found(await this.endpoints.get(p.tenantId, id), id);
    return { messages: await this.deliveries.messages(p.tenantId, id, limitOf(q.limit)) };
  }

  @ApiOperation({
    summary: 'Deliver again (admin, operator): {messageId} one message, or {since} every message made since a time; same webhook-id, fresh schedule',
  })
  @Post(':id/redeliver')
  @HttpCode(202)
  async redeliver(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    may(p, 'manage');
    const which = parse(Redelivery, body, 'redeliver');
    found(await this.endpoints.get(p.tenantId, id), id);
    return { redelivering: await this.deliveries.redeliver(p.tenantId, id, which) };
  }
}

/** Tenant settings of webhooks: approval links on or off. */
@ApiTags('webhooks')
@Controller('v1/webhook-settings')
export class WebhookSettingsController {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly store: EventStore,
  ) {}

  @ApiOperation({ summary: "The tenant's webhook settings: {approvalLinks}" })
  @Get()
  async get(@CurrentPrincipal() p: Principal) {
    may(p, 'read');
    return { approvalLinks: await this.endpoints.approvalLinks(p.tenantId) };
  }

  @ApiOperation({ summary: 'Turn approval links on or off (admin, operator): {approvalLinks}; off, links already sent are refused too' })
  @Put()
  async set(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Req() req: Req) {
    may(p, 'manage');
    const { approvalLinks } = parse(LinkSettings, body, 'settings');
    await this.endpoints.setApprovalLinks(p.tenantId, approvalLinks);
    await recordAdmin(this.store, p.tenantId, [{ type: 'ApprovalLinksSet', data: { enabled: approvalLinks } }], p, req.correlationId);
    return { approvalLinks };
  }
}
