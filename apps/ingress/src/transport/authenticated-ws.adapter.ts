import { Logger, type INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { ApiKeyService, bearerToken, type Principal } from '@hub/auth';
import type { OpenSockets } from './open-sockets';

export type UpgradeRequest = IncomingMessage & { principal?: Principal };

interface VerifyInfo {
  req: UpgradeRequest;
}
type VerifyDone = (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void;

/** Seconds a client refused for capacity is told to wait before it tries again. */
const FULL_RETRY_AFTER_S = 5;

/**
 * The ws adapter with the hub's edge rules applied to every WebSocket: the upgrade is
 * authenticated (401 problem+json before any frame), a process holds at most
 * `sockets.maxSockets` sockets (503 problem+json with Retry-After beyond), a frame over the
 * size limit closes the socket with 1009 ("message too big"), and a socket whose key is
 * revoked later is closed (see `OpenSockets`).
 */
export class AuthenticatedWsAdapter extends WsAdapter {
  private readonly edgeLog = new Logger('ws');
  constructor(
    app: INestApplicationContext,
    private readonly keys: ApiKeyService,
    private readonly maxFrameBytes: number,
    private readonly sockets: OpenSockets,
  ) {
    super(app);
  }

  override create(port: number, options: Record<string, unknown> = {}) {
    const server = super.create(port, {
      ...options,
      maxPayload: this.maxFrameBytes,
      verifyClient: (info: VerifyInfo, done: VerifyDone) => this.admitAndVerify(info.req, done),
    }) as WebSocketServer;
    this.trackSockets(server, String(options['path'] ?? ''));
    return server;
  }

  override async dispose(): Promise<void> {
    this.sockets.stop();
    await super.dispose();
  }

  /**
   * A client's own fault on a socket (a frame over the limit, bad UTF-8, a bad opcode: ws's
   * `WS_ERR_*` codes) is one info line, not a stack at ERROR; anything else stays an error.
   */
  override bindErrorHandler(server: WebSocketServer): WebSocketServer {
    const report = (err: Error & { code?: string }) =>
      typeof err.code === 'string' && err.code.startsWith('WS_ERR_') ? this.edgeLog.log(`client socket fault: ${err.code}: ${err.message}`) : this.edgeLog.error(err);
    server.on('connection', (ws: WebSocket) => ws.on('error', report));
    server.on('error', report);
    return server;
  }

  /** Capacity first (cheap, and a flood of upgrades must not become a flood of key lookups), then the key. */
  private admitAndVerify(req: UpgradeRequest, done: VerifyDone): void {
    if (!this.sockets.admit()) {
      const detail = `this ingress holds its limit of ${this.sockets.maxSockets} WebSockets; retry later or elsewhere`;
      return done(false, 503, problem('UNAVAILABLE', 503, detail), { 'Content-Type': 'application/problem+json', 'Retry-After': String(FULL_RETRY_AFTER_S) });
    }
    void this.verify(req)
      .then(
        (p) => done(p !== null, 401, p ? undefined : problem401(), { 'Content-Type': 'application/problem+json' }),
        () => done(false, 503, problem('UNAVAILABLE', 503, 'cannot check the API key now'), { 'Content-Type': 'application/problem+json' }),
      )
      .finally(() => this.sockets.release());
  }

  private trackSockets(server: WebSocketServer, path: string): void {
    server.on('connection', (ws: WebSocket, req: UpgradeRequest) => this.sockets.track(ws, req.principal, path));
  }

  private async verify(req: UpgradeRequest): Promise<Principal | null> {
    const principal = await this.keys.verify(bearerToken(req.headers.authorization));
    if (principal) req.principal = principal;
    return principal;
  }
}

function problem(code: string, status: number, detail: string): string {
  return JSON.stringify({ type: `urn:hub:error:${code.toLowerCase()}`, title: code, status, detail, code });
}

function problem401(): string {
  return problem('UNAUTHENTICATED', 401, 'missing, invalid or revoked API key: send Authorization: Bearer <key>');
}
