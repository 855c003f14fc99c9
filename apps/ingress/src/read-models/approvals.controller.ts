import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@hub/auth';
import { DomainError, SESSION_ID_PATTERN } from '@hub/domain';
import { APPROVAL_STATUSES, ApprovalFeed, ReadModels, type ApprovalView } from '@hub/projections';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { limitOf, oneOf, onlyKnown, positionOf, single } from './query';

const HEARTBEAT_MS = 15_000;

/**
 * The approval inbox: every approval of the tenant across sessions and protocols, pending or
 * resolved, and a live feed of changes (Server-Sent Events) so an inbox updates without polling.
 */
@Controller('v1/approvals')
export class ApprovalsController {
  constructor(
    private readonly reads: ReadModels,
    private readonly feed: ApprovalFeed,
  ) {}

  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>) {
    onlyKnown(q, ['status', 'limit', 'cursor', 'sessionId']);
    const sessionId = single(q, 'sessionId');
    if (sessionId !== undefined && !SESSION_ID_PATTERN.test(sessionId)) throw new DomainError('INVALID_COMMAND', 'sessionId: 1-128 of [A-Za-z0-9._:@-]', { field: 'sessionId' });
    const status = oneOf(q, 'status', APPROVAL_STATUSES, 'pending') as 'pending' | 'resolved';
    const page = await this.reads.approvals(p.tenantId, { status, limit: limitOf(q), cursor: single(q, 'cursor'), sessionId });
    return { approvals: page.items, nextCursor: page.nextCursor };
  }

  /**
   * `event: approval` frames, each the approval's current state with `id:` its change position.
   * Without a cursor (`after` or `Last-Event-ID`) it starts with every pending approval; then
   * `event: ready`, then each change as the projection commits it.
   */
  @Get('stream')
  async stream(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    onlyKnown(q, ['after']);
    const after = positionOf(single(q, 'after') ?? req.header('last-event-id'), 'after');
    // Before the 200: a feed that cannot listen is a problem+json, not a stream that never speaks.
    await this.feed.start();
    const snapshot = after === undefined ? await this.reads.approvalSnapshot(p.tenantId) : { position: after, pending: [] };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const send = (a: ApprovalView) => res.write(`id: ${a.position}\nevent: approval\ndata: ${JSON.stringify(a)}\n\n`);
    snapshot.pending.forEach(send);
    res.write(`event: ready\ndata: ${JSON.stringify({ position: snapshot.position })}\n\n`);
    // The client may leave while the watch is being set up: close it whichever comes last.
    const live: { closed: boolean; watch?: { close(): void } } = { closed: false };
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    req.on('close', () => {
      live.closed = true;
      clearInterval(heartbeat);
      live.watch?.close();
    });
    live.watch = await this.feed.watch(p.tenantId, snapshot.position, (changes) => changes.forEach(send));
    if (live.closed) live.watch.close();
  }
}
