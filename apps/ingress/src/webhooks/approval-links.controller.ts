import { Body, Controller, HttpCode, HttpException, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError, sessionStreamId, type CommandMetadata, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { ATTR, runWithTenant, withSpan } from '@hub/telemetry';
import { WebhookEndpoints, claimsOf, verifyLink, type LinkClaims } from '@hub/webhooks';
import { Public } from '../auth/public.decorator';
import { SessionDecisions } from '../commands/session-decisions';
import { Decision, parse } from './webhook-input';

/**
 * Approval links (issue 28): the signed, single-use decision URL an `approval.requested`
 * webhook carries. POSTing a decision to it decides without an API key; the decision is recorded
 * with the link as its actor (which endpoint and delivery carried it). Forged or malformed: 401;
 * expired (with the approval's deadline): 410; links turned off for the tenant: 403; a second
 * use, or an approval already decided another way: 409 with the first decision and who made it.
 */
@ApiTags('webhooks')
@Controller('v1/approval-links')
export class ApprovalLinksController {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly decisions: SessionDecisions,
    private readonly store: EventStore,
  ) {}

  @ApiOperation({ summary: 'Decide an approval through its link (no API key): {decision: approved|denied, reason?}; once only' })
  @Public()
  @Post(':token')
  @HttpCode(200)
  async decide(@Param('token') token: string, @Body() body: unknown, @Req() req: { correlationId?: string }, @Res({ passthrough: true }) res: Response) {
    const claims = await this.verified(token);
    const { decision, reason } = parse(Decision, body, 'decision');
    const actor = {
      type: 'approval_link' as const,
      id: `${claims.e}/${claims.m}`,
      name: `approval link of webhook endpoint ${claims.e}, delivery ${claims.m}`,
    };
    const meta: CommandMetadata = {
      // One command per link: a repeat (a double click, a retried POST) is the same command, answered as a second use.
      commandId: `approval-link:${claims.m}`,
      tenantId: claims.t,
      now: new Date().toISOString(),
      actor,
      protocol: 'internal',
      correlationId: req.correlationId ?? randomUUID(),
    };
    const attrs = { [ATTR.TENANT_ID]: claims.t, [ATTR.SESSION_ID]: claims.s, [ATTR.COMMAND]: 'ResolveApproval' };
    const outcome = await runWithTenant(claims.t, () =>
      withSpan('approval-link', attrs, () =>
        this.decisions.decide({ type: 'ResolveApproval', sessionId: claims.s, approvalId: claims.a, decision, reason: reason ?? null }, meta),
      ).catch((e: unknown) => {
        if (isDomainError(e)) return { ok: false as const, code: e.code, message: e.message };
        throw e;
      }),
    );
    if (outcome.ok && !outcome.duplicate) return { approvalId: claims.a, sessionId: claims.s, decision, decidedBy: actor };
    if (!outcome.ok && outcome.code !== 'APPROVAL_ALREADY_RESOLVED') throw new DomainError(outcome.code, outcome.message);
    // Used before, or decided another way first: the first decision, and who made it.
    res.status(409).type('application/problem+json');
    return {
      type: 'urn:hub:error:approval_already_resolved',
      title: 'APPROVAL_ALREADY_RESOLVED',
      status: 409,
      code: 'APPROVAL_ALREADY_RESOLVED',
      detail: `approval ${claims.a} was already decided`,
      firstDecision: await this.firstDecision(claims),
    };
  }

  private async verified(token: string): Promise<LinkClaims> {
    const stated = claimsOf(token);
    const settings = stated === null ? null : await this.endpoints.linkSettings(stated.t);
    if (stated === null || settings === null) throw new DomainError('UNAUTHENTICATED', 'not a valid approval link');
    const v = verifyLink(token, settings.key, Date.now());
    if (!v.ok && v.why === 'expired') throw new HttpException('this approval link has expired (with its approval)', 410);
    if (!v.ok) throw new DomainError('UNAUTHENTICATED', 'not a valid approval link');
    if (!settings.on) throw new DomainError('FORBIDDEN', 'approval links are turned off for this tenant');
    return v.claims;
  }

  private async firstDecision(c: LinkClaims): Promise<Record<string, unknown> | null> {
    const { events } = await this.store.readStream<HubEvent>(c.t, sessionStreamId(c.s));
    const first = events.find((e) => e.type === 'ApprovalResolved' && e.data.approvalId === c.a);
    if (!first || first.type !== 'ApprovalResolved') return null;
    return {
      decision: first.data.decision,
      by: first.data.by,
      via: first.data.via,
      reason: first.data.reason,
      at: first.createdAt,
      position: first.globalPosition,
    };
  }
}
