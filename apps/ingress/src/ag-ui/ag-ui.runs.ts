import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { Principal } from '@hub/auth';
import { DomainError, type HubCommand, type HubEvent, type Recorded } from '@hub/domain';
import {
  agUiError,
  encodeEvent,
  evolveFacts,
  finishRun,
  foldAgUi,
  planRun,
  startRun,
  type AgUiView,
  type Frame,
  type RunPlan,
  type RunRequest,
  type RunView,
} from '@hub/protocol-ag-ui';
import { ATTR, withSpan } from '@hub/telemetry';
import { SessionAccess } from '../auth/session-access';
import { CommandService } from '../commands/command.service';
import { EventStreams } from '../http/event-streams';
import type { SocketLease } from '../limits/socket-leases';
import { TenantSockets } from '../limits/tenant-sockets';
import { SessionStreams, type SessionFeed } from '../streams/session-streams.service';
import { AgUiRefusal } from './ag-ui-errors';

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
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw)) throw new AgUiRefusal(agUiError('INVALID_INPUT', 'Last-Event-ID must be a cursor this hub sent (a global position).', '$header.last-event-id'));
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
      feed = await this.streams.open(principal.tenantId, request.sessionId, (batch) => (deliver.to ? deliver.to(batch) : void early.push(batch)), after === undefined ? {} : { after });
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
    // A key revoked mid-run ends it the AG-UI way, so a frontend's verifier sees a run error, not a foreign frame.
    const revoked = encoder.encodeSSE({ type: EventType.RUN_ERROR, message: 'the API key of this stream was revoked; sign in again with a valid key', code: 'UNAUTHENTICATED' } as BaseEvent);
    const out = this.events.open(req, res, principal, revoked);
    this.sockets.hold(o.lease, { once: (_event, release) => out.onClose(release) });
    out.onClose(() => void o.feed.close());
    let view = o.view;
    let done = false;
    const send = (frames: readonly Frame[]) => {
      for (const f of frames) out.write(`${f.cursor === undefined ? '' : `id: ${f.cursor}\n`}${encoder.encodeSSE(f.event)}`);
    };
    // Approvals this run answers, until their resolution arrives from the log: not yet a reason to stop.
    const answering = new Set(o.plan.kind === 'resume' ? o.plan.commands.map((c) => c.approvalId) : []);
    const finish = (): boolean => {
      const end = finishRun(answering.size === 0 ? view : { ...view, pending: without(view.pending, [...answering]) }, run);
      if (!end) return false;
      send(end.frames);
      done = true;
      out.end();
      return true;
    };
    /** `check`: whether the run may end after the batch (not while catching up to the head). */
    const apply = (batch: readonly Recorded<HubEvent>[], check = true) => {
      if (done) return;
      try {
        for (const event of batch) {
          if (event.type === 'ApprovalResolved') answering.delete(event.data.approvalId);
          const next = encodeEvent(view, event);
          view = next.view;
          send(next.frames);
        }
        if (check) finish();
      } catch (e) {
        this.log.error(`run ${run.runId} of session ${run.threadId} failed (correlation id ${correlationId}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        send([{ event: { type: EventType.RUN_ERROR, message: `internal error (correlation id ${correlationId})`, code: 'INTERNAL' } as BaseEvent }]);
        done = true;
        out.end();
      }
    };
    const started = startRun(view, run, { cursor: o.cursor, messages: o.plan.kind === 'attach' && after === undefined });
    view = started.view;
    send(started.frames);
    apply(o.catchUp, false);
    // A run whose turn is already over, or waits for approvals, ends at once: a reconnect after the
    // end, a resent run, a resume sent again after its answer was taken.
    if (!done && finish()) return;
    for (const batch of o.early.splice(0)) apply(batch);
    o.deliver.to = apply;
  }
}

function without<T>(record: Readonly<Record<string, T>>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}
