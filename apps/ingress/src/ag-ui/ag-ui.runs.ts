import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { EventEncoder } from '@ag-ui/encoder';
import type { Principal } from '@hub/auth';
import { DomainError, type HubCommand, type HubEvent, type Recorded } from '@hub/domain';
import { agUiError, evolveFacts, foldAgUi, planRun, startRun, type AgUiView, type RunPlan, type RunRequest, type RunView } from '@hub/protocol-ag-ui';
import { EventStore } from '@hub/event-store';
import { ATTR, withSpan } from '@hub/telemetry';
import { SessionAccess } from '../auth/session-access';
import { CommandService } from '../commands/command.service';
import { EventStreams } from '../http/event-streams';
import type { SocketLease } from '../limits/socket-leases';
import { TenantSockets } from '../limits/tenant-sockets';
import { SessionStreams, type SessionFeed } from '../streams/session-streams.service';
import { AgUiRefusal } from './ag-ui-errors';
import { AgUiStream } from './ag-ui.stream';

/** A run whose commands were accepted: what its stream starts from. */
interface OpenedRun {
  feed: SessionFeed;
  lease: SocketLease | null;
  /** Live batches that arrived before the stream was ready, in order. */
  early: Recorded<HubEvent>[][];
  deliver: { to: ((batch: Recorded<HubEvent>[]) => void) | null };
  /** The session at the cursor the stream starts from, and the events from there to the feed's head. */
  view: AgUiView;
  catchUp: Recorded<HubEvent>[];
  cursor: number;
  plan: RunPlan;
}

/** `Last-Event-ID`: the cursor (global position) a dropped stream resumes after. */
export function lastEventIdOf(req: Request): number | undefined {
  const raw = req.header('last-event-id');
  if (raw === undefined || raw === '') return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw))
    throw new AgUiRefusal(agUiError('INVALID_INPUT', 'Last-Event-ID must be a cursor this hub sent (a global position).', '$header.last-event-id'));
  return Number(raw);
}

/**
 * AG-UI runs at the edge: read the session, decide (planRun), hand the commands to the command
 * service, then stream the run from the log until its turn ends or waits for an approval. A
 * refusal before the stream opens is problem+json; the stream counts as one of the tenant's
 * open sockets.
 */
@Injectable()
export class AgUiRuns {
  private readonly log = new Logger('ag-ui');

  constructor(
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly access: SessionAccess,
    private readonly events: EventStreams,
    private readonly sockets: TenantSockets,
    private readonly store: EventStore,
  ) {}

  async run(request: RunRequest, principal: Principal, req: Request, res: Response, after?: number): Promise<void> {
    const correlationId = (req as Request & { correlationId?: string }).correlationId ?? randomUUID();
    const attrs = { [ATTR.TENANT_ID]: principal.tenantId, [ATTR.SESSION_ID]: request.sessionId, [ATTR.PROTOCOL]: 'ag-ui' };
    const opened = await withSpan('ag-ui run', attrs, () => this.open(request, principal, correlationId, after));
    this.stream(opened, { threadId: request.sessionId, runId: request.runId, follow: opened.plan.follow }, req, res, principal, correlationId, after);
  }

  private async open(request: RunRequest, principal: Principal, correlationId: string, after?: number): Promise<OpenedRun> {
    await this.access.check(principal, request.sessionId, 'read');
    const lease = await this.sockets.admit(principal.tenantId);
    const early: Recorded<HubEvent>[][] = [];
    const deliver: OpenedRun['deliver'] = { to: null };
    let feed: SessionFeed | undefined;
    try {
      // The history reaches at least what was committed before this request (this process may not
      // have heard of it yet, and it may not be settled yet while an older transaction runs: the
      // feed waits for it): an approval answered a moment ago elsewhere is not shown as waiting.
      const committed = await this.store.committedHeadPosition(principal.tenantId);
      feed = await this.streams.open(principal.tenantId, request.sessionId, (batch) => (deliver.to ? deliver.to(batch) : void early.push(batch)), {
        after: Math.max(after ?? 0, committed),
      });
      const cursor = after ?? feed.head;
      const view = foldAgUi(feed.history.filter((e) => e.globalPosition <= cursor));
      const catchUp = feed.history.filter((e) => e.globalPosition > cursor);
      const plan = planRun(request, catchUp.reduce(evolveFacts, view));
      await this.dispatch(plan, request, principal, correlationId);
      return { feed, lease, early, deliver, view, catchUp, cursor, plan };
    } catch (e) {
      await feed?.close();
      this.sockets.hold(lease, { once: (_event, release) => release() });
      throw e;
    }
  }

  private async dispatch(plan: RunPlan, request: RunRequest, principal: Principal, correlationId: string): Promise<void> {
    const commands: [HubCommand, string][] =
      plan.kind === 'submit'
        ? [[plan.command, plan.commandId]]
        : plan.kind === 'resume'
          ? plan.commands.map((c) => [c, `ag-ui:${request.sessionId}:${request.runId}:${c.approvalId}`])
          : [];
    for (const [command, commandId] of commands) {
      const outcome = await this.commands.dispatch(command, principal, { protocol: 'ag-ui', correlationId, commandId });
      if (!outcome.ok) throw new DomainError(outcome.code, outcome.message);
    }
  }

  /** From here on the answer is 200 and every failure is an AG-UI event. */
  private stream(o: OpenedRun, run: RunView, req: Request, res: Response, principal: Principal, correlationId: string, after?: number): void {
    const encoder = new EventEncoder({ accept: req.header('accept') ?? 'text/event-stream' });
    const out = this.events.open(req, res, principal, AgUiStream.revokedFrame(encoder));
    this.sockets.hold(o.lease, { once: (_event, release) => out.onClose(release) });
    out.onClose(() => void o.feed.close());
    const answering = o.plan.kind === 'resume' ? o.plan.commands.map((c) => c.approvalId) : [];
    const stream = new AgUiStream(out, encoder, o.view, run, answering, this.log, correlationId);
    const started = startRun(o.view, run, { cursor: o.cursor, messages: o.plan.kind === 'attach' && after === undefined });
    stream.open(started.view, started.frames);
    stream.apply(o.catchUp, false);
    // A run whose turn is already over, or waits for approvals, ends at once: a reconnect after the
    // end, a resent run, a resume sent again after its answer was taken.
    if (stream.finish()) return;
    for (const batch of o.early.splice(0)) stream.apply(batch);
    o.deliver.to = (batch) => stream.apply(batch);
  }
}
