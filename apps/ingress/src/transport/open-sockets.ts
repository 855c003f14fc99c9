import { Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';
import type { KeyLiveness, PersonSessions, Principal } from '@hub/auth';
import { hubMetrics } from '@hub/telemetry';
import { KeyRecheck } from '../auth/key-recheck';
import { KEY_REVOKED_CLOSE_CODE, KEY_REVOKED_REASON, revokedKeyFrame } from './revocation-frames';

interface OpenSocket {
  readonly principal: Principal;
  readonly path: string;
}

/** How long a socket told to close may take to finish the closing handshake before it is cut. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Every WebSocket this ingress process holds, whatever its protocol, for two rules:
 * - a per-process bound (`HUB_WS_MAX_SOCKETS`): `admit()` says no once the open sockets plus
 *   upgrades being authenticated reach it;
 * - revocation (KeyRecheck): every `HUB_KEY_RECHECK_MS`, and at once when a key changes, a
 *   socket whose key was revoked (by any process, or `bin/hub key revoke`) gets its protocol's
 *   error frame and is closed with 4401.
 */
export class OpenSockets {
  private readonly sockets = new Map<WebSocket, OpenSocket>();
  private readonly keys: KeyRecheck<WebSocket>;
  private upgrading = 0;
  private readonly log = new Logger('sockets');

  constructor(
    liveness: KeyLiveness,
    readonly maxSockets: number,
    recheckMs: number,
    sessions?: Pick<PersonSessions, 'liveIds'>,
  ) {
    this.keys = new KeyRecheck(
      liveness,
      recheckMs,
      'socket',
      (ws) => {
        const s = this.sockets.get(ws);
        if (s) this.closeRevoked(ws, s);
      },
      sessions,
    );
  }

  get size(): number {
    return this.sockets.size;
  }

  /** Open sockets per protocol (the `hub.sockets.open` gauge). */
  byProtocol(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { path } of this.sockets.values()) {
      const protocol = protocolOfPath(path);
      counts.set(protocol, (counts.get(protocol) ?? 0) + 1);
    }
    return counts;
  }

  /** Reserves a place for an upgrade being authenticated; false when the process is full. Pair with `release()`. */
  admit(): boolean {
    if (this.sockets.size + this.upgrading >= this.maxSockets) return false;
    this.upgrading++;
    return true;
  }

  /** The upgrade admitted earlier has ended (refused, or became a tracked socket). */
  release(): void {
    this.upgrading = Math.max(0, this.upgrading - 1);
  }

  track(ws: WebSocket, principal: Principal | undefined, path: string): void {
    if (!principal) return;
    this.sockets.set(ws, { principal, path });
    this.keys.add(ws, principal);
    const protocol = protocolOfPath(path);
    const opened = performance.now();
    hubMetrics().socketsOpened.add(1, { protocol });
    // The access log of sockets: one line at open, one at close (no query string, no key).
    this.log.log({ msg: 'socket opened', protocol, path: path.split('?')[0], tenant_id: principal.tenantId, key: principal.keyPrefix });
    ws.once('close', (code: number) => {
      this.sockets.delete(ws);
      this.keys.delete(ws);
      this.log.log({ msg: 'socket closed', protocol, tenant_id: principal.tenantId, code, ms: Math.round(performance.now() - opened) });
    });
  }

  /** Closes the sockets whose key no longer works (KeyRecheck); never throws. */
  sweep(): Promise<void> {
    return this.keys.sweep();
  }

  stop(): void {
    this.keys.stop();
  }

  private closeRevoked(ws: WebSocket, s: OpenSocket): void {
    this.sockets.delete(ws);
    this.log.log(`closing a ${s.path} socket of key ${s.principal.keyPrefix}: the key was revoked`);
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(revokedKeyFrame(s.path)));
    ws.close(KEY_REVOKED_CLOSE_CODE, KEY_REVOKED_REASON);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}

/** The protocol a WebSocket path belongs to: /v1/acp, /v1/openenv/ENV/ws or /harness, else the transport. */
function protocolOfPath(path: string): string {
  const p = path.split('?')[0] ?? '';
  if (p.startsWith('/v1/acp')) return 'acp';
  if (p.startsWith('/v1/openenv')) return 'openenv';
  return 'transport';
}
