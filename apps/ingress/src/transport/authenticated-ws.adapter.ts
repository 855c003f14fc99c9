import { Logger, type INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { bearerToken, type Credentials, type Principal } from '@hub/auth';
import { isDomainError, retryAfterSecondsOf } from '@hub/domain';
import type { SocketLease } from '../limits/socket-leases';
import type { TenantSockets } from '../limits/tenant-sockets';
import type { OpenSockets } from './open-sockets';

export type UpgradeRequest = IncomingMessage & { principal?: Principal; socketLease?: SocketLease | null };

interface VerifyInfo {
  req: UpgradeRequest;
}
type VerifyDone = (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void;

/** Seconds a client refused for capacity is told to wait before it tries again. */
const FULL_RETRY_AFTER_S = 5;

/**
 * The ws adapter with the hub's edge rules applied to every WebSocket: the upgrade is
 * authenticated (401 problem+json before any frame), a process holds at most
 * `sockets.maxSockets` sockets (503 problem+json with Retry-After beyond), a tenant at most its
 * `openSockets` limit across every ingress (429 problem+json `RATE_LIMITED` with Retry-After), a
 * frame over the size limit closes the socket with 1009 ("message too big"), and a socket whose
 * key is revoked later is closed (see `OpenSockets`).
 */
export class AuthenticatedWsAdapter extends WsAdapter {
  private readonly edgeLog = new Logger('ws');
  constructor(
    app: INestApplicationContext,
    private readonly keys: Pick<Credentials, 'verify'>,
    private readonly maxFrameBytes: number,
    private readonly sockets: OpenSockets,
    private readonly tenantSockets: TenantSockets,
    /** The console's session cookie, for an upgrade that carries no key (issue 24). */
    private readonly cookies?: { upgradePrincipal(req: IncomingMessage): Promise<Principal | undefined> },
  ) {
    super(app);
  }

  override create(port: number, options: Record<string, unknown> = {}) {
    const server = super.create(port, {
      ...options,
      maxPayload: this.maxFrameBytes,
      verifyClient: (info: VerifyInfo, done: VerifyDone) => this.admitAndVerify(info.req, done),
      handleProtocols: selectProtocol,
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
      typeof err.code === 'string' && err.code.startsWith('WS_ERR_')
        ? this.edgeLog.log(`client socket fault: ${err.code}: ${err.message}`)
        : this.edgeLog.error(err);
    server.on('connection', (ws: WebSocket) => ws.on('error', report));
    server.on('error', report);
    return server;
  }

  /**
   * The gateways read their sockets themselves (`ws.on('message')`) and declare no
   * `@SubscribeMessage` handler, yet Nest's adapter gave every socket an RxJS pipeline (about a
   * dozen subscribers, subjects and closures, ~3 KB of an idle socket's ~20) and parsed every
   * inbound frame as JSON a second time. With no handler there is nothing for it to do.
   */
  override bindMessageHandlers(...args: Parameters<WsAdapter['bindMessageHandlers']>): ReturnType<WsAdapter['bindMessageHandlers']> {
    if (args[1].length === 0) return;
    return super.bindMessageHandlers(...args);
  }

  /** Capacity first (cheap, and a flood of upgrades must not become a flood of key lookups), then the key. */
  private admitAndVerify(req: UpgradeRequest, done: VerifyDone): void {
    if (!this.sockets.admit()) {
      const detail = `this ingress holds its limit of ${this.sockets.maxSockets} WebSockets; retry later or elsewhere`;
      return done(false, 503, problem('UNAVAILABLE', 503, detail), { 'Content-Type': 'application/problem+json', 'Retry-After': String(FULL_RETRY_AFTER_S) });
    }
    void this.verify(req)
      .then(
        async (p) => {
          if (!p) return done(false, 401, problem401(), { 'Content-Type': 'application/problem+json' });
          // The tenant's open sockets, counted across every ingress: refused here, before the socket opens.
          req.socketLease = await this.tenantSockets.admit(p.tenantId);
          done(true);
        },
        // An access token refused for a reason (expired, wrong audience, no mapped group) says it.
        (e: unknown) =>
          isDomainError(e) && (e.code === 'UNAUTHENTICATED' || e.code === 'FORBIDDEN')
            ? done(false, e.code === 'FORBIDDEN' ? 403 : 401, problem(e.code, e.code === 'FORBIDDEN' ? 403 : 401, e.message), {
                'Content-Type': 'application/problem+json',
              })
            : done(false, 503, problem('UNAVAILABLE', 503, 'cannot check the API key now'), { 'Content-Type': 'application/problem+json' }),
      )
      .catch((e: unknown) => {
        if (isDomainError(e) && e.code === 'RATE_LIMITED') {
          const retryAfterS = retryAfterSecondsOf(e) ?? 1;
          return done(false, 429, problem('RATE_LIMITED', 429, e.message), { 'Content-Type': 'application/problem+json', 'Retry-After': String(retryAfterS) });
        }
        this.edgeLog.warn(`cannot count the tenant's open sockets: ${(e as Error).message}`);
        done(false, 503, problem('UNAVAILABLE', 503, "cannot count this tenant's open sockets now"), {
          'Content-Type': 'application/problem+json',
          'Retry-After': String(FULL_RETRY_AFTER_S),
        });
      })
      .finally(() => this.sockets.release());
  }

  private trackSockets(server: WebSocketServer, path: string): void {
    server.on('connection', (ws: WebSocket, req: UpgradeRequest) => {
      this.tenantSockets.hold(req.socketLease ?? null, ws);
      this.sockets.track(ws, req.principal, path);
    });
  }

  private async verify(req: UpgradeRequest): Promise<Principal | null> {
    const presented = bearerToken(req.headers.authorization) ?? keyFromProtocols(req.headers['sec-websocket-protocol']);
    const principal = presented === undefined && this.cookies ? ((await this.cookies.upgradePrincipal(req)) ?? null) : await this.keys.verify(presented);
    if (principal) req.principal = principal;
    return principal;
  }
}

/**
 * A browser cannot set `Authorization` on a WebSocket, so a key may also come as a subprotocol:
 * `Sec-WebSocket-Protocol: hub.bearer, hub.key.<KEY>` (`new WebSocket(url, ['hub.bearer',
 * 'hub.key.' + key])`). The marker must be there too, so a protocol that merely starts with the
 * prefix is never taken for a key by accident. The Authorization header wins when both are sent.
 */
export const BEARER_PROTOCOL = 'hub.bearer';
export const KEY_PROTOCOL_PREFIX = 'hub.key.';

/** The key carried in the subprotocol list, when the list holds the marker and exactly one key. */
export function keyFromProtocols(header: string | string[] | undefined): string | undefined {
  const list = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((p) => p.trim());
  const keys = list.filter((p) => p.startsWith(KEY_PROTOCOL_PREFIX));
  if (!list.includes(BEARER_PROTOCOL) || keys.length !== 1) return undefined;
  return keys[0].slice(KEY_PROTOCOL_PREFIX.length) || undefined;
}

/**
 * The subprotocol the server answers with. A browser refuses a socket whose server picks none of
 * the offered ones, so the non-secret marker is echoed; an entry carrying a key never is (ws's
 * default would echo the first offered entry). Other offers keep ws's default: the first.
 */
export function selectProtocol(protocols: Set<string>): string | false {
  if (protocols.has(BEARER_PROTOCOL)) return BEARER_PROTOCOL;
  const first = [...protocols].find((p) => !p.startsWith(KEY_PROTOCOL_PREFIX));
  return first ?? false;
}

function problem(code: string, status: number, detail: string): string {
  return JSON.stringify({ type: `urn:hub:error:${code.toLowerCase()}`, title: code, status, detail, code });
}

function problem401(): string {
  return problem(
    'UNAUTHENTICATED',
    401,
    'missing, invalid or revoked API key: send Authorization: Bearer <key> (browsers: subprotocols hub.bearer, hub.key.<key>)',
  );
}
