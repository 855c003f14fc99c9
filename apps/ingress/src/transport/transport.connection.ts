import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { Principal } from '@hub/auth';
import { DomainError, initialHarnessView, isDomainError, type HarnessView, type HubEvent, type Recorded } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import { decode, domainErrorFrame, encode, encodeBatch, errorFrame, internalErrorFrame, snapshot, type ServerMessage } from '@hub/protocol-transport';
import {
  ATTR,
  correlationIdFrom,
  failRequestSpans,
  runWithCorrelation,
  runWithTenant,
  withContext,
  withSpan,
  type TraceContext,
  guarded,
} from '@hub/telemetry';
import type { CommandService } from '../commands/command.service';
import type { SessionFeed, SessionStreams } from '../streams/session-streams.service';
import { paced } from './replay-pace';
import { sessionLogUpTo } from './session-log-pages';
import { boundedSender, SLOW_CONSUMER_RESUME, type FrameSender } from './slow-consumer';

/** One WebSocket watching (and steering) one session. */
export class TransportConnection {
  private view: HarnessView = initialHarnessView();
  /**
   * Ends the live feed. Only this is kept of the feed, not the feed: its `history` is the whole
   * session, sent once at connect, and every watcher of a long session would otherwise hold it.
   */
  private closeFeed?: SessionFeed['close'];
  /** Frames leave strictly in log order: every send goes through this chain. */
  private chain: Promise<void>;
  private openGate!: () => void;
  /** Set while the socket replays the log (`?replay=1`): commands are refused, nothing is dispatched. */
  private replaying = false;
  /** Aborted when the socket closes: a replay stops waiting and reading. Made by a replay only (most sockets never replay). */
  private closed?: AbortController;
  /** Set while the session has no event yet: its first one says whether this key may watch it. */
  private unopened = false;
  /** Every frame leaves through it: a client that stops reading is closed 4008 and its feed released. */
  private readonly sendFrame: FrameSender;

  constructor(
    private readonly ws: WebSocket,
    private readonly principal: Principal,
    private readonly sessionId: string,
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly log: Logger,
    /** From the upgrade request: `X-Correlation-ID` and `traceparent` apply to every command sent on this socket. */
    private readonly trace: { correlationId?: string; context: TraceContext },
    /** Whether this key may watch a session whose first event is this (SessionAccess.mayWatchOpenedBy). */
    private readonly mayWatch: (first: Recorded<HubEvent>) => boolean = () => true,
    /** Unsent bytes past which the client counts as not reading (`HUB_WS_MAX_BUFFERED_BYTES`). */
    maxBufferedBytes = Number.POSITIVE_INFINITY,
  ) {
    this.sendFrame = boundedSender(ws, maxBufferedBytes, SLOW_CONSUMER_RESUME.transport, () => {
      this.closed?.abort();
      void this.closeFeed?.();
    });
    this.chain = new Promise((resolve) => (this.openGate = resolve));
    ws.on(
      'message',
      guarded('transport frame', (data: RawData, isBinary: boolean) => this.onMessage(isBinary ? null : data.toString())),
    );
    ws.on(
      'close',
      guarded('transport close', () => {
        this.closed?.abort();
        return this.closeFeed?.();
      }),
    );
    ws.on('error', (e) => this.log.warn(`socket error: ${e.message}`));
  }

  async start(after?: number): Promise<void> {
    let feed: SessionFeed;
    try {
      feed = await this.streams.open(this.principal.tenantId, this.sessionId, (batch) => this.enqueue(batch), { after });
    } catch (e) {
      this.send(this.failureFrame(e, 'open session', this.trace.correlationId ?? correlationIdFrom(undefined)));
      this.ws.close(1008, 'cannot open session');
      return;
    }
    this.closeFeed = feed.close;
    if (this.ws.readyState !== this.ws.OPEN) return void feed.close();
    this.unopened = feed.history.length === 0;
    if (after === undefined) {
      for (const e of feed.history) this.view = encode(e, this.view).view;
      this.send(snapshot(this.view, feed.head), true);
    } else {
      for (const e of feed.history) this.apply(e, e.globalPosition > after, true);
    }
    this.openGate();
  }

  /**
   * Replays the session's log as it stood at connect, without subscribing or running anything: a
   * `state` snapshot at `after` (0 by default: the empty view), then each later event's `delta`
   * frames, paced at the recorded pace divided by `speed`; close 1000 when the log is exhausted.
   */
  async replay(store: EventStore, speed: number, after = 0): Promise<void> {
    this.replaying = true;
    const closed = (this.closed = new AbortController());
    const tenantId = this.principal.tenantId;
    let head: number;
    let through: { streamPosition: number; createdAt: string } | undefined;
    try {
      head = await store.headPosition(tenantId);
      if (after > head) throw new DomainError('CURSOR_OUT_OF_RANGE', `cursor ${after} is ahead of the log (head ${head})`);
      for await (const e of sessionLogUpTo(store, tenantId, this.sessionId, { head: after })) {
        this.view = encode(e, this.view).view;
        through = e;
      }
    } catch (e) {
      this.send(this.failureFrame(e, 'open replay', this.correlationId()));
      return this.ws.close(1008, 'cannot open replay');
    }
    this.send(snapshot(this.view, after));
    const rest = sessionLogUpTo(store, tenantId, this.sessionId, { from: through?.streamPosition, head });
    try {
      for await (const e of paced(rest, speed, closed.signal, through?.createdAt)) this.apply(e, true);
    } catch (e) {
      if (closed.signal.aborted) return;
      this.send(this.failureFrame(e, 'replay', this.correlationId()));
      return this.ws.close(1011, 'replay failed');
    }
    this.ws.close(1000, 'replay complete');
  }

  private correlationId(): string {
    return this.trace.correlationId ?? correlationIdFrom(undefined);
  }

  private enqueue(batch: Recorded<HubEvent>[]): Promise<void> {
    this.chain = this.chain.then(() => {
      if (this.unopened && batch.length > 0) {
        this.unopened = false;
        // Watched before it existed, and opened by another key than this client key: to it, the
        // session does not exist (the same answer as at connect), and nothing of it is sent.
        if (!this.mayWatch(batch[0])) {
          this.send(domainErrorFrame(new DomainError('SESSION_NOT_FOUND', `session ${this.sessionId} not found`)));
          this.ws.close(1008, 'session not readable with this key');
          void this.closeFeed?.();
          return;
        }
      }
      // One frame for what was committed together (encodeBatch): in a crowd, ingress's writes and
      // every client's messages were a frame per event.
      const { view, frames } = encodeBatch(batch, this.view);
      this.view = view;
      frames.forEach((f) => this.send(f));
    });
    return this.chain;
  }

  /** `catchUp`: history the client asked for at connect, not counted against its send buffer (slow-consumer.ts). */
  private apply(event: Recorded<HubEvent>, emit: boolean, catchUp = false): void {
    const { view, frames } = encode(event, this.view);
    this.view = view;
    if (emit) frames.forEach((f) => this.send(f, catchUp));
  }

  private send(frame: ServerMessage, catchUp = false): void {
    this.sendFrame(frame, catchUp);
  }

  /** The wire's name for a failure; what the client may not see goes to the log under the correlation id. */
  private failureFrame(e: unknown, what: string, correlationId: string): ServerMessage {
    const frame = isDomainError(e) ? domainErrorFrame(e) : internalErrorFrame(correlationId);
    if (frame.code === 'internal' || frame.code === 'provider_error') {
      this.log.error(`${what} failed (correlation id ${correlationId}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (frame.code === 'internal') return internalErrorFrame(correlationId);
    }
    return frame;
  }

  private async onMessage(raw: string | null): Promise<void> {
    if (this.replaying)
      return this.send(errorFrame('forbidden', 'this socket replays a recorded session (?replay=1) and is read-only: commands are refused, nothing was run'));
    if (raw === null) return this.send(errorFrame('invalid_message', 'binary frames are not part of this protocol'));
    const decoded = decode(raw, { sessionId: this.sessionId, newId: () => randomUUID() });
    if (!decoded.ok) return this.send(errorFrame(decoded.error.code, decoded.error.message));
    const correlationId = this.trace.correlationId ?? correlationIdFrom(undefined);
    const attrs = { [ATTR.TENANT_ID]: this.principal.tenantId, [ATTR.SESSION_ID]: this.sessionId, [ATTR.PROTOCOL]: 'transport' };
    await withContext(this.trace.context, () =>
      runWithCorrelation(correlationId, () =>
        runWithTenant(this.principal.tenantId, () =>
          withSpan('transport commands', attrs, async () => {
            for (const command of decoded.commands) {
              const commandId = command.type === 'SubmitTurn' ? `transport:${this.sessionId}:${command.turnId}` : randomUUID();
              try {
                const outcome = await this.commands.dispatch(command, this.principal, { protocol: 'transport', correlationId, commandId });
                if (!outcome.ok) {
                  failRequestSpans(outcome.code, outcome.message);
                  this.send(domainErrorFrame(outcome));
                }
              } catch (e) {
                failRequestSpans(isDomainError(e) ? e.code : 'INTERNAL', e instanceof Error ? e.message : String(e));
                this.send(this.failureFrame(e, `command ${command.type}`, correlationId));
              }
            }
          }),
        ),
      ),
    );
  }
}
