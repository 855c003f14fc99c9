import type { IncomingMessage, Server } from 'node:http';
import type { WebSocket } from 'ws';
import type { Principal } from '@hub/auth';
import { ATTR, contextFromHeaders, correlationIdFrom, guarded, runWithCorrelation, withContext, withSpan } from '@hub/telemetry';
import type { UpgradeRequest } from '../transport/authenticated-ws.adapter';
import { boundedSender } from '../transport/slow-consumer';
import { OPENENV_HARNESS_PATH, OPENENV_WS_PATH } from './openenv-paths';

export { OPENENV_HARNESS_PATH, OPENENV_WS_PATH };

const ROUTE = /^\/v1\/openenv\/([^/]+)\/(ws|harness)$/;
const installed = new WeakSet<Server>();

/**
 * OpenEnv clients open `<base_url>/ws` (and RFC 005's `<base_url>/harness`), with the
 * environment in the path; Nest's ws adapter routes upgrades by exact path only. This listener
 * runs first and rewrites `/v1/openenv/<env>/ws` to `/v1/openenv-ws?env=<env>` (same for
 * `harness`), so the gateways keep the adapter's authentication and frame-size rules.
 */
export function installUpgradeRoutes(server: Server): void {
  if (installed.has(server)) return;
  installed.add(server);
  // This runs before authentication, on input anyone can send: it must not throw.
  server.prependListener(
    'upgrade',
    guarded('openenv upgrade route', (req: IncomingMessage) => {
      const url = new URL(req.url ?? '/', 'http://ingress');
      const m = ROUTE.exec(url.pathname);
      if (!m) return;
      url.searchParams.set('env', decodedOrRaw(m[1]));
      req.url = `${m[2] === 'ws' ? OPENENV_WS_PATH : OPENENV_HARNESS_PATH}?${url.searchParams.toString()}`;
    }),
  );
}

/**
 * The environment segment, percent-decoded; malformed encoding (`%ZZ`) is kept as it came. The
 * gateway checks the name after authentication and refuses it as an unknown environment, so an
 * unauthenticated caller still gets the 401 every other upgrade gets.
 */
function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // URIError: not a name any environment can have
  }
}

/** The `env` and other query parameters of a rewritten upgrade request. */
export function upgradeParams(req: IncomingMessage): URLSearchParams {
  return new URL(req.url ?? '/', 'http://ingress').searchParams;
}

/** What both OpenEnv sockets start from: the caller, the request's correlation id, a JSON sender. */
export interface OpenEnvSocket {
  principal: Principal;
  correlationId: string;
  /** `catchUp`: history the client asked for, not counted against its send buffer (slow-consumer.ts). */
  send(frame: object, catchUp?: boolean): void;
  /** Aborted when the client stopped reading and the socket was closed 4008: release what feeds it. */
  slow: AbortSignal;
  /**
   * Runs a frame's handling in a span of its own, in the trace of the upgrade's `traceparent`
   * and with the socket's correlation id, so the turn it starts hangs under it.
   */
  inTrace<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * The socket's caller and sender; an unauthenticated socket is closed (1008) and gets null. The
 * sender closes a client that stops reading (`maxBufferedBytes` unsent) with 4008, saying how
 * to `resume` (slow-consumer.ts).
 */
export function openEnvSocket(ws: WebSocket, req: UpgradeRequest, maxBufferedBytes: number, resume: string): OpenEnvSocket | null {
  if (!req.principal) {
    ws.close(1008, 'unauthenticated');
    return null;
  }
  const principal = req.principal;
  const correlationId = correlationIdFrom(req.headers['x-correlation-id'] as string | undefined);
  const parent = contextFromHeaders(req.headers);
  const slow = new AbortController();
  const sendFrame = boundedSender(ws, maxBufferedBytes, resume, () => slow.abort());
  return {
    principal,
    correlationId,
    send: (frame, catchUp) => void sendFrame(frame, catchUp),
    slow: slow.signal,
    inTrace: (name, fn) =>
      withContext(parent, () =>
        runWithCorrelation(correlationId, () => withSpan(name, { [ATTR.TENANT_ID]: principal.tenantId, [ATTR.PROTOCOL]: 'openenv' }, fn)),
      ),
  };
}
