import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { Principal } from '@hub/auth';
import { initialHarnessView, isDomainError, type HarnessView, type HubEvent, type Recorded } from '@hub/domain';
import { decode, domainErrorFrame, encode, errorFrame, internalErrorFrame, snapshot, type ServerMessage } from '@hub/protocol-transport';
import { ATTR, correlationIdFrom, runWithCorrelation, withContext, withSpan, type TraceContext, guarded } from '@hub/telemetry';
import type { CommandService } from '../commands/command.service';
import type { SessionFeed, SessionStreams } from '../streams/session-streams.service';

/** One WebSocket watching (and steering) one session. */
export class TransportConnection {
  private view: HarnessView = initialHarnessView();
  private feed?: SessionFeed;
  /** Frames leave strictly in log order: every send goes through this chain. */
  private chain: Promise<void>;
  private openGate!: () => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly principal: Principal,
    private readonly sessionId: string,
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly log: Logger,
    /** From the upgrade request: `X-Correlation-ID` and `traceparent` apply to every command sent on this socket. */
    private readonly trace: { correlationId?: string; context: TraceContext },
  ) {
    this.chain = new Promise((resolve) => (this.openGate = resolve));
    ws.on('message', guarded('transport frame', (data: RawData, isBinary: boolean) => this.onMessage(isBinary ? null : data.toString())));
    ws.on('close', guarded('transport close', () => this.feed?.close()));
    ws.on('error', (e) => this.log.warn(`socket error: ${e.message}`));
  }

  async start(after?: number): Promise<void> {
    try {
      this.feed = await this.streams.open(this.principal.tenantId, this.sessionId, (batch) => this.enqueue(batch), { after });
    } catch (e) {
      this.send(this.failureFrame(e, 'open session', this.trace.correlationId ?? correlationIdFrom(undefined)));
      this.ws.close(1008, 'cannot open session');
      return;
    }
    if (this.ws.readyState !== this.ws.OPEN) return void this.feed.close();
    if (after === undefined) {
      for (const e of this.feed.history) this.view = encode(e, this.view).view;
      this.send(snapshot(this.view, this.feed.head));
    } else {
      for (const e of this.feed.history) this.apply(e, e.globalPosition > after);
    }
    this.openGate();
  }

  private enqueue(batch: Recorded<HubEvent>[]): Promise<void> {
    this.chain = this.chain.then(() => batch.forEach((e) => this.apply(e, true)));
    return this.chain;
  }

  private apply(event: Recorded<HubEvent>, emit: boolean): void {
    const { view, frames } = encode(event, this.view);
    this.view = view;
    if (emit) frames.forEach((f) => this.send(f));
  }

  private send(frame: ServerMessage): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
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
    if (raw === null) return this.send(errorFrame('invalid_message', 'binary frames are not part of this protocol'));
    const decoded = decode(raw, { sessionId: this.sessionId, newId: () => randomUUID() });
    if (!decoded.ok) return this.send(errorFrame(decoded.error.code, decoded.error.message));
    const correlationId = this.trace.correlationId ?? correlationIdFrom(undefined);
    const attrs = { [ATTR.TENANT_ID]: this.principal.tenantId, [ATTR.SESSION_ID]: this.sessionId, [ATTR.PROTOCOL]: 'transport' };
    await withContext(this.trace.context, () => runWithCorrelation(correlationId, () => withSpan('transport commands', attrs, async () => {
      for (const command of decoded.commands) {
        const commandId = command.type === 'SubmitTurn' ? `transport:${this.sessionId}:${command.turnId}` : randomUUID();
        try {
          const outcome = await this.commands.dispatch(command, this.principal, { protocol: 'transport', correlationId, commandId });
          if (!outcome.ok) this.send(domainErrorFrame(outcome));
        } catch (e) {
          this.send(this.failureFrame(e, `command ${command.type}`, correlationId));
        }
      }
    })));
  }
}
