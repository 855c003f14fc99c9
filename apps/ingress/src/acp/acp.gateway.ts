import { SessionAccess } from '../auth/session-access';
import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { RawData, WebSocket } from 'ws';
import { EventStore, EventSubscriber, SecretStore } from '@hub/event-store';
import { RPC, rpcError } from '@hub/protocol-acp';
import { contextFromHeaders, correlationIdFrom, guarded } from '@hub/telemetry';
import { CommandService } from '../commands/command.service';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { SessionStreams } from '../streams/session-streams.service';
import type { UpgradeRequest } from '../transport/authenticated-ws.adapter';
import { boundedSender, SLOW_CONSUMER_RESUME } from '../transport/slow-consumer';
import { AcpConnection } from './acp.connection';
import { AcpHandlers } from './acp.handlers';
import { LiveRegistry } from './live-registry';

/**
 * `WS /v1/acp` — the Agent Client Protocol (JSON-RPC 2.0, one message per text frame) with the
 * Harn bridge additions (specs/harn-acp-bridge-protocol.md). `bin/hub acp` bridges stdio to it.
 */
@WebSocketGateway({ path: '/v1/acp' })
export class AcpGateway implements OnGatewayConnection {
  private readonly log = new Logger('acp');
  private readonly live: LiveRegistry;

  constructor(
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly access: SessionAccess,
    private readonly store: EventStore,
    private readonly subscriber: EventSubscriber,
    secrets: SecretStore,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {
    this.live = new LiveRegistry(store, secrets);
  }

  handleConnection(ws: WebSocket, req: UpgradeRequest): void {
    if (!req.principal) return ws.close(1008, 'unauthenticated');
    const header = req.headers['x-correlation-id'];
    const correlationId = correlationIdFrom(Array.isArray(header) ? header[0] : header);
    // A client that stops reading is closed 4008 and its sessions' feeds released (slow-consumer.ts).
    const sendFrame = boundedSender(
      ws,
      this.settings.wsMaxBufferedBytes,
      SLOW_CONSUMER_RESUME.acp,
      () => void conn.close().catch((e: Error) => this.log.warn(`acp: releasing a slow consumer: ${e.message}`)),
    );
    const send = (msg: unknown, catchUp?: boolean) => void sendFrame(msg, catchUp);
    const deps = {
      streams: this.streams,
      commands: this.commands,
      access: this.access,
      store: this.store,
      subscriber: this.subscriber,
      permissionTimeoutMs: this.settings.acpPermissionTimeoutMs,
      mcpAllow: { stdio: this.settings.mcpStdioAllowlist, http: this.settings.mcpHttpAllowlist },
      live: this.live,
    };
    const conn = new AcpConnection(send, req.principal, deps, this.log, correlationId, (c) => new AcpHandlers(c), contextFromHeaders(req.headers));
    // Frames are handled in arrival order per method call, but a long `session/prompt` must not
    // block the `session/cancel` or permission answer that follows it: each frame runs on its own.
    ws.on(
      'message',
      guarded('acp frame', (data: RawData, isBinary: boolean) => {
        if (isBinary) return send(rpcError(null, { code: RPC.INVALID_REQUEST, message: 'binary frames are not part of this protocol' }));
        return conn.onFrame(data.toString());
      }),
    );
    ws.on(
      'close',
      guarded('acp close', () => conn.close()),
    );
    ws.on('error', (e) => this.log.warn(`socket error: ${e.message}`));
  }
}
