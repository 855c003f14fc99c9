import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Pool } from 'pg';
import { z } from 'zod';
import { actorOf, type Principal } from '@hub/auth';
import { DomainError, type Actor, type AdminEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { ScheduleNotFound, Schedules } from '@hub/schedules';
import { recordAdmin } from '../admin/admin-events';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { PG_POOL } from '../hub.providers';
import { apiRef } from '../http/api-schemas';

/** Who may change schedules; who may read them (a client key does neither: schedules are the tenant's). */
const WRITERS = new Set(['admin', 'operator']);
const READERS = new Set(['admin', 'operator', 'approver', 'viewer']);

function mayRead(p: Principal): void {
  if (!READERS.has(p.role))
    throw new DomainError('FORBIDDEN', `reading schedules needs an admin, operator, approver or viewer key; this key's role is ${p.role}`);
}
function mayWrite(p: Principal): void {
  if (!WRITERS.has(p.role)) throw new DomainError('FORBIDDEN', `changing schedules needs an admin or operator key; this key's role is ${p.role}`);
}

const Note = z.object({ note: z.string().max(1_000).nullable().optional() }).strict();
const Backfill = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }).strict();
const SaveBody = z.object({ clientKey: z.string().min(1).max(200).optional() }).passthrough();

function parse<T>(schema: z.ZodType<T>, body: unknown, shape: string): T {
  const r = schema.safeParse(body ?? {});
  if (!r.success)
    throw new DomainError('INVALID_COMMAND', `body must be ${shape}: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? ''}`.trim());
  return r.data;
}

/** The lib's not-found as HTTP 404 (problem+json `NOT_FOUND`); everything else as it is. */
async function found<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof ScheduleNotFound) throw new NotFoundException(e.message);
    throw e;
  }
}

/**
 * Schedules (issue 25, ADR 0037): agent runs that start on their own. Operators and admins
 * write, every other role but `client` reads; the tenant is the key's. Each change is an event
 * on the tenant's admin stream naming who made it.
 */
@ApiTags('schedules')
@Controller('v1/schedules')
export class SchedulesController {
  private readonly schedules: Schedules;

  constructor(@Inject(PG_POOL) pool: Pool, store: EventStore) {
    // Each change on the tenant's admin stream, as every other administration fact.
    this.schedules = new Schedules(pool, (tenantId: string, events: AdminEvent[], by: Actor) => recordAdmin(store, tenantId, events, by));
  }

  @ApiOkResponse({ schema: apiRef('ScheduleList') })
  @ApiOperation({ summary: "This tenant's schedules with their last run and next fire time" })
  @Get()
  async list(@CurrentPrincipal() p: Principal) {
    mayRead(p);
    return { schedules: await this.schedules.list(p.tenantId) };
  }

  @ApiCreatedResponse({ schema: apiRef('ScheduleView'), description: 'Created' })
  @ApiOkResponse({ schema: apiRef('ScheduleView'), description: 'Updated: a schedule with this clientKey existed' })
  @ApiOperation({ summary: 'Create a schedule; with a clientKey, a repeat updates the schedule of that key (200) instead of creating another (201)' })
  @Post()
  async create(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Res({ passthrough: true }) res: { status(code: number): unknown }) {
    mayWrite(p);
    const { clientKey, ...spec } = parse(SaveBody, body, '{clientKey?, name, cron | intervalMs, ...}');
    const saved = await this.schedules.save(p.tenantId, spec, actorOf(p), { clientKey: clientKey ?? null });
    res.status(saved.created ? 201 : 200);
    return saved.schedule;
  }

  @ApiOkResponse({ schema: apiRef('ScheduleView') })
  @ApiOperation({ summary: 'One schedule' })
  @Get(':id')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    mayRead(p);
    return found(this.schedules.get(p.tenantId, id));
  }

  @ApiOkResponse({ schema: apiRef('ScheduleView') })
  @ApiOperation({ summary: "Replace a schedule's spec (timing changes apply from now)" })
  @Put(':id')
  async update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    mayWrite(p);
    return (await found(this.schedules.save(p.tenantId, body, actorOf(p), { id }))).schedule;
  }

  @ApiOperation({ summary: 'Delete a schedule (its ticks and the sessions they made stay)' })
  @Delete(':id')
  @HttpCode(200)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    mayWrite(p);
    await found(this.schedules.remove(p.tenantId, id, actorOf(p)));
    return { id, deleted: true };
  }

  @ApiOkResponse({ schema: apiRef('ScheduleView') })
  @ApiOperation({ summary: 'Pause a schedule, with a note saying why: {note?}' })
  @Post(':id/pause')
  @HttpCode(200)
  async pause(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    mayWrite(p);
    return found(this.schedules.pause(p.tenantId, id, parse(Note, body, '{note?}').note ?? null, actorOf(p)));
  }

  @ApiOkResponse({ schema: apiRef('ScheduleView') })
  @ApiOperation({ summary: 'Resume a paused schedule from now (ticks of the pause are not run): {note?}' })
  @Post(':id/resume')
  @HttpCode(200)
  async resume(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    mayWrite(p);
    return found(this.schedules.resume(p.tenantId, id, parse(Note, body, '{note?}').note ?? null, actorOf(p)));
  }

  @ApiOperation({ summary: 'Run the schedule once now (paused or not)' })
  @Post(':id/trigger')
  @HttpCode(202)
  async trigger(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    mayWrite(p);
    return found(this.schedules.trigger(p.tenantId, id, actorOf(p)));
  }

  @ApiOperation({ summary: 'Run the ticks of a past range that were never decided: {from, to} (ISO times; at most 1,000 ticks)' })
  @Post(':id/backfill')
  @HttpCode(202)
  async backfill(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    mayWrite(p);
    const range = parse(Backfill, body, '{"from": ISO time, "to": ISO time}');
    return found(this.schedules.backfill(p.tenantId, id, new Date(range.from), new Date(range.to), actorOf(p)));
  }

  @ApiOkResponse({ schema: apiRef('FireTimes') })
  @ApiQuery({ name: 'count', required: false, description: '1-100, default 10' })
  @ApiQuery({ name: 'after', required: false, description: 'ISO time; default now' })
  @ApiOperation({ summary: 'The next N fire times (?count=N, 1-100, default 10; ?after=ISO time)' })
  @Get(':id/preview')
  async preview(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query('count') count?: string, @Query('after') after?: string) {
    mayRead(p);
    const at = after === undefined ? undefined : new Date(after);
    if (at && Number.isNaN(at.getTime())) throw new DomainError('INVALID_COMMAND', 'after must be an ISO time');
    return { fireTimes: await found(this.schedules.preview(p.tenantId, id, count === undefined ? 10 : Number(count), at)) };
  }

  @ApiOkResponse({ schema: apiRef('ScheduleTickList') })
  @ApiQuery({ name: 'limit', required: false, description: '1-1000, default 100' })
  @ApiOperation({ summary: "The schedule's decided ticks, newest first: scheduled and actual start, outcome, the session it made (?limit=N)" })
  @Get(':id/ticks')
  async ticks(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query('limit') limit?: string) {
    mayRead(p);
    return { ticks: await found(this.schedules.ticks(p.tenantId, id, limit === undefined ? 100 : Number(limit) || 100)) };
  }
}
