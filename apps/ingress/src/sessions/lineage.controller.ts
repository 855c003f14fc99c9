import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from '@hub/auth';
import { actorOf } from '@hub/auth';
import { DomainError, RedriveTarget, SESSION_ID_PATTERN, sessionStreamId, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { compareRuns } from '@hub/projections';
import { SessionLineage } from '@hub/sessions';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { CommandService } from '../commands/command.service';
import { sessionParam } from './session-param';
import { SessionAccess } from '../auth/session-access';
import { EnvironmentRegistry } from '../openenv/environment-registry';
import { ApiTenantLimited } from '../limits/limits-openapi';

const SessionId = z.string().regex(SESSION_ID_PATTERN, 'session id: 1-128 of [A-Za-z0-9._:@-]');
const ForkBody = z.object({ at: z.number().int().nonnegative().optional(), sessionId: SessionId.optional() }).strict();
const RedriveBody = z
  .object({
    model: z.string().min(1).max(200).optional(),
    harness: z.record(z.string(), z.unknown()).optional(),
    tools: z.enum(['recorded', 'live']).default('recorded'),
    sessionId: SessionId.optional(),
  })
  .strict()
  .refine((b) => !(b.model && b.harness), 'give "model" or "harness", not both');

/** A new session id beside its source's: `<source>.<kind>-<6 hex>`, within the id's 128 characters. */
function derivedId(source: string, kind: 'fork' | 'redrive'): string {
  const suffix = `.${kind}-${randomBytes(3).toString('hex')}`;
  return `${source.slice(0, 128 - suffix.length)}${suffix}`;
}

/**
 * Sessions made from other sessions: forks (history copied up to a cursor) and re-drives (the
 * user turns run again against another model or harness, tools served from the recording).
 * Neither touches the source session. See ADR 0018.
 */
@ApiTags('sessions')
@Controller('v1/sessions')
export class LineageController {
  private readonly lineage: SessionLineage;

  constructor(
    private readonly store: EventStore,
    private readonly commands: CommandService,
    private readonly access: SessionAccess,
  ) {
    this.lineage = new SessionLineage({
      readStream: (tenantId, streamId) => store.readStream<HubEvent>(tenantId, streamId),
      append: (tenantId, streamId, events, opts) => store.append<HubEvent>(tenantId, streamId, events as never, opts),
    });
  }

  @ApiOperation({ summary: 'Fork a session at a cursor where it is at rest: {"at"?: cursor, "sessionId"?: new id}' })
  @ApiTenantLimited()
  @Post(':id/fork')
  @HttpCode(201)
  async fork(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() req: { correlationId?: string },
    @Headers('idempotency-key') requestId?: string,
  ) {
    await this.access.check(p, sessionParam(id), 'fork');
    const parsed = ForkBody.safeParse(body ?? {});
    if (!parsed.success)
      throw new DomainError(
        'INVALID_COMMAND',
        `body must be {"at"?: non-negative integer cursor, "sessionId"?: new session id}: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    const parent = sessionParam(id);
    const childId = parsed.data.sessionId ?? derivedId(parent, 'fork');
    await this.commands.admitNewSession(p, childId);
    const metadata = { correlationId: req.correlationId ?? randomUUID(), actor: actorOf(p), protocol: 'internal' as const };
    const forked = await this.lineage.fork(p.tenantId, parent, childId, parsed.data.at, metadata, requestId && `${p.tenantId}:${requestId}`);
    // A fork of an OpenEnv episode is an episode too, so OpenEnv clients see and continue it.
    const episode = forked.episode
      ? await new EnvironmentRegistry(this.store).registerFork(p.tenantId, forked.episode.env, childId, forked.episode.seed, metadata)
      : null;
    return {
      sessionId: forked.sessionId,
      parentSessionId: parent,
      at: forked.at,
      copiedEvents: forked.copiedEvents,
      cursor: forked.cursor,
      ...(episode ? { env: episode.env, episodeId: episode.episodeId } : {}),
    };
  }

  @ApiOperation({ summary: 'Re-drive a session\'s user turns in a new session: {"model"? | "harness"?, "tools": "recorded"|"live", "sessionId"?}' })
  @ApiTenantLimited()
  @Post(':id/redrive')
  @HttpCode(202)
  async redrive(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() req: { correlationId?: string },
    @Headers('idempotency-key') requestId?: string,
  ) {
    await this.access.check(p, sessionParam(id), 'redrive');
    const parsed = RedriveBody.safeParse(body ?? {});
    if (!parsed.success)
      throw new DomainError(
        'INVALID_COMMAND',
        `body must be {"model"?: name | "harness"?: harness config, "tools"?: "recorded"|"live", "sessionId"?: new id}: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    const source = sessionParam(id);
    const { model, harness, tools } = parsed.data;
    const target = model ? RedriveTarget.parse({ model }) : harness ? RedriveTarget.parse({ harness }) : null;
    const childId = parsed.data.sessionId ?? derivedId(source, 'redrive');
    // The new session and its first turn, before anything is written (each turn then spends its own
    // turn per minute as it is submitted: a re-drive of more turns than are left stops part way).
    await this.commands.admitNewSession(p, childId, { turn: true });
    const correlationId = req.correlationId ?? randomUUID();
    const opened = await this.lineage.openRedrive(
      p.tenantId,
      source,
      childId,
      target,
      tools,
      { correlationId, actor: actorOf(p), protocol: 'internal' },
      requestId && `${p.tenantId}:${requestId}`,
    );
    // Queued in order behind each other (busy policy enqueue); a repeat of the request submits
    // nothing twice (the turn ids are the source's, the command ids derived from them).
    for (const submit of opened.submits) {
      const outcome = await this.commands.dispatch(submit, p, { protocol: 'internal', correlationId, commandId: `redrive:${childId}:${submit.turnId}` });
      if (!outcome.ok) throw new DomainError(outcome.code, `re-drive of turn ${submit.turnId}: ${outcome.message}`);
    }
    return {
      sessionId: childId,
      sourceSessionId: source,
      turns: opened.submits.length,
      tools,
      target,
      report: `/v1/sessions/${encodeURIComponent(childId)}/redrive-report`,
    };
  }

  @ApiOperation({ summary: 'Compare a re-driven session with its source, turn by turn' })
  @Get(':id/redrive-report')
  async report(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.access.check(p, sessionParam(id), 'read');
    const rerun = (await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(sessionParam(id)))).events as HubEvent[];
    if (rerun.length === 0) throw new DomainError('SESSION_NOT_FOUND', `session ${id} not found`);
    const redriven = rerun.find((e): e is Extract<HubEvent, { type: 'SessionRedriven' }> => e.type === 'SessionRedriven');
    if (!redriven) throw new DomainError('INVALID_COMMAND', `session ${id} is not a re-drive`);
    const source = (await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(redriven.data.sourceSessionId))).events as HubEvent[];
    const comparison = compareRuns(source, rerun, redriven.data.turnIds);
    return { sessionId: id, sourceSessionId: redriven.data.sourceSessionId, target: redriven.data.target, tools: redriven.data.tools, ...comparison };
  }
}
