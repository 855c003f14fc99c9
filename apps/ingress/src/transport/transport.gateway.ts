import { Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { SESSION_ID_PATTERN } from '@hub/domain';
import { errorFrame } from '@hub/protocol-transport';
import { contextFromTraceparent, correlationIdFrom } from '@hub/telemetry';
import { CommandService } from '../commands/command.service';
import { SessionStreams } from '../streams/session-streams.service';
import type { UpgradeRequest } from './authenticated-ws.adapter';
import { TransportConnection } from './transport.connection';

/**
 * `WS /v1/transport?session=ID[&after=CURSOR]` — the Harness transport protocol
 * (specs/harness-transport-protocol.md plus the additions in the README).
 */
@WebSocketGateway({ path: '/v1/transport' })
export class TransportGateway implements OnGatewayConnection {
  private readonly log = new Logger('transport');

  constructor(
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
  ) {}

  async handleConnection(ws: WebSocket, req: UpgradeRequest): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://ingress');
    const sessionId = url.searchParams.get('session') ?? '';
    const afterRaw = url.searchParams.get('after');
    const after = afterRaw === null ? undefined : Number(afterRaw);
    if (!req.principal) return ws.close(1008, 'unauthenticated');
    if (!SESSION_ID_PATTERN.test(sessionId) || (after !== undefined && !(Number.isSafeInteger(after) && after >= 0))) {
      ws.send(JSON.stringify(errorFrame('invalid_request', 'need ?session=ID (1-128 of [A-Za-z0-9._:@-]) and an optional ?after=<non-negative integer cursor>')));
      return ws.close(1008, 'invalid session or cursor');
    }
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const trace = {
      correlationId: header('x-correlation-id') ? correlationIdFrom(header('x-correlation-id')) : undefined,
      context: contextFromTraceparent(header('traceparent'), header('tracestate')),
    };
    const conn = new TransportConnection(ws, req.principal, sessionId, this.streams, this.commands, this.log, trace);
    await conn.start(after);
  }
}
