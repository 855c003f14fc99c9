import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import type { Principal } from '@hub/auth';
import { isDomainError, retryAfterMsOf } from '@hub/domain';
import { decodeAction, decodeWsFrame, wsError, wsObservation, wsState, type WsClientFrame, type WsErrorCode } from '@hub/protocol-openenv';
import type { UpgradeRequest } from '../transport/authenticated-ws.adapter';
import { SLOW_CONSUMER_RESUME } from '../transport/slow-consumer';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import type { Episode } from './environment-registry';
import { envName } from './environment-config';
import { OpenEnvEpisodes, OpenEnvRefusal } from './openenv-episodes';
import { OpenEnvMcp } from './openenv-mcp';
import { OPENENV_WS_PATH, openEnvSocket, upgradeParams } from './openenv-upgrade';
import { publicErrorMessage } from '../transport/public-error';

/**
 * `WS /v1/openenv/<env>/ws` — OpenEnv's WebSocket API (what its Python client uses by default):
 * `{type: reset|step|state|close|mcp, data}` in, `{type: observation|state|mcp|error, data}` out.
 * As upstream, each connection has its own episode; frames are handled one at a time.
 */
@WebSocketGateway({ path: OPENENV_WS_PATH })
export class OpenEnvWsGateway implements OnGatewayConnection {
  private readonly log = new Logger('openenv');

  constructor(
    private readonly episodes: OpenEnvEpisodes,
    private readonly mcp: OpenEnvMcp,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  async handleConnection(ws: WebSocket, req: UpgradeRequest): Promise<void> {
    const socket = openEnvSocket(ws, req, this.settings.wsMaxBufferedBytes, SLOW_CONSUMER_RESUME.openenvWs);
    if (!socket) return;
    const { principal, correlationId, send } = socket;
    // Frames may arrive before the environment is checked: take them now, handle them after.
    let chain: Promise<unknown> = this.open(principal.tenantId, upgradeParams(req).get('env') ?? '', send, ws, correlationId);
    const conn: Conn = { principal, env: '', correlationId, episode: undefined };
    chain = chain.then((env) => void (conn.env = env as string));
    ws.on('message', (data, isBinary) => {
      chain = chain
        .then(() => (conn.env ? socket.inTrace('openenv frame', () => this.onFrame(conn, isBinary ? null : data.toString(), send, ws)) : undefined))
        .catch((e: unknown) => {
          this.log.error(`openenv ws frame: ${(e as Error)?.stack ?? String(e)}`);
          send(wsError('EXECUTION_ERROR', 'internal error'));
        });
    });
    ws.on('error', (e) => this.log.warn(`socket error: ${e.message}`));
  }

  /** The checked environment name, or '' after refusing the socket. */
  private async open(tenantId: string, raw: string, send: (f: object) => void, ws: WebSocket, correlationId: string): Promise<string> {
    try {
      const env = envName(raw);
      await this.episodes.environment(tenantId, env);
      return env;
    } catch (e) {
      send(wsError('FACTORY_ERROR', publicErrorMessage(e, this.log, 'openenv ws open', correlationId)));
      ws.close(1008, 'unknown environment');
      return '';
    }
  }

  private async onFrame(conn: Conn, raw: string | null, send: (f: object) => void, ws: WebSocket): Promise<void> {
    if (raw === null) return void send(wsError('INVALID_JSON', 'binary frames are not part of this protocol'));
    const d = decodeWsFrame(raw);
    if (!d.ok) return void send(wsError(d.code, d.message));
    try {
      await this.handle(conn, d.frame, send, ws);
    } catch (e) {
      // A used-up tenant limit: OpenEnv's "come back later" code, with the wait.
      const retryAfterMs = retryAfterMsOf(e);
      if (retryAfterMs !== undefined) return void send(wsError('CAPACITY_REACHED', (e as Error).message, { retry_after_ms: retryAfterMs }));
      // A role that may not (issue 16), or another key's session to a client key: the refusal, not an internal error.
      if (isDomainError(e) && (e.code === 'FORBIDDEN' || e.code === 'SESSION_NOT_FOUND')) return void send(wsError('EXECUTION_ERROR', e.message));
      if (!(e instanceof OpenEnvRefusal)) throw e;
      const code: WsErrorCode = e.kind === 'no_episode' || e.kind === 'episode_done' ? 'SESSION_ERROR' : 'EXECUTION_ERROR';
      send(wsError(code, e.message));
    }
  }

  private async handle(conn: Conn, frame: WsClientFrame, send: (f: object) => void, ws: WebSocket): Promise<void> {
    switch (frame.type) {
      case 'reset': {
        const data = frame.data;
        const episodeId = typeof data['episode_id'] === 'string' ? data['episode_id'] : null;
        const seed = typeof data['seed'] === 'number' ? data['seed'] : null;
        const { episode, result } = await this.episodes.reset(conn.principal, conn.env, { episodeId, seed }, conn.correlationId);
        conn.episode = episode;
        return void send(wsObservation(result));
      }
      case 'step': {
        if (!conn.episode) return void send(wsError('SESSION_ERROR', 'no episode: send {"type": "reset"} first'));
        const a = decodeAction(frame.data);
        if (!a.ok) return void send(wsError('VALIDATION_ERROR', a.detail.map((x) => `${x.loc.join('.')}: ${x.msg}`).join('; ')));
        return void send(wsObservation(await this.episodes.step(conn.principal, conn.env, a.value, { episode: conn.episode }, conn.correlationId)));
      }
      case 'state':
        return void send(wsState(conn.episode ? await this.episodes.state(conn.principal, conn.env, conn.episode) : { episode_id: null, step_count: 0 }));
      case 'close':
        return void ws.close(1000, 'closed by client');
      case 'mcp':
        return void send({ type: 'mcp', data: await this.mcp.answer(conn.principal, conn.env, frame.data) });
    }
  }
}

interface Conn {
  principal: Principal;
  env: string;
  correlationId: string;
  episode: Episode | undefined;
}
