import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { SESSION_ID_PATTERN, isDomainError } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { domainErrorFrame, errorFrame } from '@hub/protocol-transport';
import { contextFromHeaders, correlationIdFrom } from '@hub/telemetry';
import { SessionAccess } from '../auth/session-access';
import { CommandService } from '../commands/command.service';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { SessionStreams } from '../streams/session-streams.service';
import type { UpgradeRequest } from './authenticated-ws.adapter';
import { MAX_REPLAY_GAP_MS, MAX_REPLAY_SPEED, replaySpeedOf } from './replay-pace';
import { TransportConnection } from './transport.connection';

/**
 * `WS /v1/transport?session=ID[&after=CURSOR]` — the Harness transport protocol
 * (specs/harness-transport-protocol.md plus the additions in docs/protocols/transport.md).
 *
 * `&replay=1[&speed=N]` watches a past run instead: a `state` snapshot at `after` (default 0, the
 * empty view), then the session's recorded events as `delta` frames, paced at the recorded pace
 * divided by N (default 1, at most MAX_REPLAY_SPEED; a recorded gap counts for at most
 * MAX_REPLAY_GAP_MS), read from the log as it stood at connect; then close 1000 "replay complete".
 * Read-only: commands get an error frame (`forbidden`) and nothing is dispatched.
 */
@WebSocketGateway({ path: '/v1/transport' })
export class TransportGateway implements OnGatewayConnection {
  private readonly log = new Logger('transport');

  constructor(
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly store: EventStore,
    private readonly access: SessionAccess,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  async handleConnection(ws: WebSocket, req: UpgradeRequest): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://ingress');
    const sessionId = url.searchParams.get('session') ?? '';
    const afterRaw = url.searchParams.get('after');
    const after = afterRaw === null ? undefined : Number(afterRaw);
    const replaySpeed = replaySpeedOf(url.searchParams);
    if (!req.principal) return ws.close(1008, 'unauthenticated');
    if (!SESSION_ID_PATTERN.test(sessionId) || (after !== undefined && !(Number.isSafeInteger(after) && after >= 0))) {
      ws.send(
        JSON.stringify(errorFrame('invalid_request', 'need ?session=ID (1-128 of [A-Za-z0-9._:@-]) and an optional ?after=<non-negative integer cursor>')),
      );
      return ws.close(1008, 'invalid session or cursor');
    }
    if (replaySpeed === null) {
      ws.send(
        JSON.stringify(
          errorFrame(
            'invalid_request',
            `?replay=1 watches a past run, with an optional ?speed=N (a number > 0 and <= ${MAX_REPLAY_SPEED}, default 1; a recorded pause counts for at most ${MAX_REPLAY_GAP_MS} ms); ?speed= needs ?replay=1`,
          ),
        ),
      );
      return ws.close(1008, 'invalid replay');
    }
    try {
      // Every role reads; a client key only the sessions its key opened (to it, others do not exist).
      await this.access.check(req.principal, sessionId, 'read');
    } catch (e) {
      if (!isDomainError(e)) throw e;
      ws.send(JSON.stringify(domainErrorFrame(e)));
      return ws.close(1008, 'session not readable with this key');
    }
    const asked = req.headers['x-correlation-id'];
    const correlation = Array.isArray(asked) ? asked[0] : asked;
    const trace = { correlationId: correlation ? correlationIdFrom(correlation) : undefined, context: contextFromHeaders(req.headers) };
    const principal = req.principal;
    const conn = new TransportConnection(
      ws,
      principal,
      sessionId,
      this.streams,
      this.commands,
      this.log,
      trace,
      (first) => this.access.mayWatchOpenedBy(principal, first),
      this.settings.wsMaxBufferedBytes,
    );
    if (replaySpeed !== undefined) return conn.replay(this.store, replaySpeed, after);
    await conn.start(after);
  }
}
