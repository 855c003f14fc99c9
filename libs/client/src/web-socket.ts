// The WebSocket a stream connects with: the `ws` package in Node (it can send an Authorization
// header and shows why an upgrade was refused: status and Retry-After), the platform's
// WebSocket elsewhere (a browser cannot set headers: the key goes as a subprotocol, as the
// console sends it).

/** The part of the WHATWG WebSocket the stream uses; `ws` and browsers both have it. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', fn: () => void): void;
  addEventListener(type: 'message', fn: (e: { data: unknown }) => void): void;
  addEventListener(type: 'close', fn: (e: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', fn: (e: unknown) => void): void;
}

export type SocketConstructor = new (url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) => SocketLike;

/** An upgrade the hub answered with HTTP instead of 101 (known with `ws` only). */
export interface UpgradeRefusal {
  status: number;
  retryAfterHeader: string | null;
  body: string;
}

export const OPEN = 1;

const isNode = () => typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

/** The constructor to use: the one given, else `ws` in Node, else the global WebSocket. */
export async function socketConstructor(given?: SocketConstructor): Promise<SocketConstructor> {
  if (given) return given;
  if (isNode()) {
    try {
      const mod = (await import('ws')) as unknown as { WebSocket?: SocketConstructor; default?: SocketConstructor };
      const ctor = mod.WebSocket ?? mod.default;
      if (ctor) return ctor;
    } catch {
      // `ws` is an optional peer dependency: without it, the platform's WebSocket (Node 22+)
    }
  }
  const global = (globalThis as { WebSocket?: SocketConstructor }).WebSocket;
  if (!global) throw new Error('no WebSocket: install the `ws` package (Node 20), or pass one as the WebSocket option');
  return global;
}

/**
 * Opens a socket to `url` with `apiKey`; `onRefused` hears an upgrade refused with HTTP (then the
 * socket closes as any failed connection does).
 */
export function openSocket(Ctor: SocketConstructor, url: URL, apiKey: string, onRefused: (r: UpgradeRefusal) => void): SocketLike {
  const wsPackage = isNode() && Ctor !== (globalThis as { WebSocket?: unknown }).WebSocket;
  // No key: the upgrade authenticates otherwise (a browser's session cookie goes by itself).
  const socket = wsPackage
    ? new Ctor(url.toString(), [], { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} })
    : new Ctor(url.toString(), apiKey ? ['hub.bearer', `hub.key.${apiKey}`] : ['hub.bearer']);
  const events = socket as unknown as { once?: (e: string, fn: (...a: unknown[]) => void) => void; terminate?: () => void };
  if (wsPackage && typeof events.once === 'function') {
    events.once('unexpected-response', (_req, res) => {
      const r = res as { statusCode: number; headers: Record<string, string | string[] | undefined>; on(e: string, fn: (d?: unknown) => void): void };
      let body = '';
      r.on('data', (d) => (body += String(d)));
      r.on('end', () => {
        const h = r.headers['retry-after'];
        onRefused({ status: r.statusCode, retryAfterHeader: Array.isArray(h) ? (h[0] ?? null) : (h ?? null), body });
        events.terminate?.();
      });
    });
  }
  return socket;
}
