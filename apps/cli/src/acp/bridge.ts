import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';
import { RPC, rpcError, type JsonRpcId } from '@hub/protocol-acp';

/** The hub's default WebSocket frame limit (HUB_MAX_FRAME_BYTES): a longer line would close the socket. */
export const DEFAULT_MAX_LINE_BYTES = 1_048_576;

export interface BridgeOptions {
  hubUrl: string;
  apiKey: string;
  input: Readable;
  output: Writable;
  log: (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;
  /** Longest stdin line sent on; longer ones are answered here with a JSON-RPC error. */
  maxLineBytes?: number;
}

/** `ws(s)://host/v1/acp` for an `http(s)://host` hub URL. */
export function acpSocketUrl(hubUrl: string): string {
  const u = new URL(hubUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/v1/acp`;
  return u.toString();
}

/** A request's id, when the line is a JSON-RPC request (null for anything else). */
function requestId(line: string): JsonRpcId | undefined {
  try {
    const m = JSON.parse(line) as { id?: unknown; method?: unknown };
    if (typeof m.method !== 'string') return undefined;
    return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  } catch {
    return undefined; // not JSON: the hub answers -32700 for it
  }
}

/** A response's id (a frame from the hub that answers one of the client's requests). */
function responseId(frame: string): string | number | undefined {
  try {
    const m = JSON.parse(frame) as { id?: unknown; method?: unknown };
    return typeof m.method !== 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pipes newline-delimited JSON-RPC between stdio and `WS /v1/acp`: one stdin line → one text
 * frame, one frame → one stdout line. Lines typed before the socket opens are held, in order. A
 * line over the frame limit is answered here (-32600) instead of being sent: the hub would close
 * the socket and every later request would be lost. When stdin ends, the socket stays open until
 * every request sent has its answer. Resolves with the exit code when either side ends.
 */
export function runAcpBridge(o: BridgeOptions): Promise<number> {
  const maxLineBytes = o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  return new Promise((resolve) => {
    const ws = new WebSocket(acpSocketUrl(o.hubUrl), { headers: { Authorization: `Bearer ${o.apiKey}` } });
    const held: string[] = [];
    /** Requests sent and not answered yet (by id). */
    const waiting = new Set<string | number>();
    let inputEnded = false;
    const finishIfDone = () => {
      if (!inputEnded || waiting.size > 0) return;
      // The editor went away: closing the socket detaches this client from its sessions.
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'client exit');
      else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };
    const send = (line: string) => {
      const id = requestId(line);
      if (id !== undefined && id !== null) waiting.add(id);
      ws.send(line);
    };
    const lines = createInterface({ input: o.input, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      const bytes = Buffer.byteLength(line);
      if (bytes > maxLineBytes) {
        o.log('warn', 'stdin line over the frame limit, answered here', { bytes, limit: maxLineBytes });
        const message = `Invalid Request: message too large (${bytes} bytes; the limit is ${maxLineBytes})`;
        o.output.write(
          `${JSON.stringify(rpcError(requestId(line) ?? null, { code: RPC.INVALID_REQUEST, message, data: { reason: 'too_large', limitBytes: maxLineBytes } }))}\n`,
        );
        return;
      }
      if (ws.readyState === WebSocket.OPEN) send(line);
      else held.push(line);
    });
    lines.on('close', () => {
      inputEnded = true;
      if (held.length === 0) finishIfDone(); // else: sent when the socket opens, then finished
    });
    ws.on('open', () => {
      o.log('info', 'connected', { url: acpSocketUrl(o.hubUrl) });
      held.splice(0).forEach(send);
      finishIfDone();
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const frame = data.toString();
      o.output.write(`${frame}\n`);
      const id = responseId(frame);
      if (id !== undefined && waiting.delete(id)) finishIfDone();
    });
    ws.on('unexpected-response', (_req, res) => {
      o.log('error', 'the hub refused the connection', { status: res.statusCode });
      if (res.statusCode !== 429) return resolve(res.statusCode === 401 ? 3 : 1);
      // A used-up tenant limit (open sockets): the editor speaks JSON-RPC, so each request it
      // sent is refused as the hub's own socket refuses one for a limit, with the wait.
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        const error = limitRefusal(body, res.headers['retry-after']);
        for (const line of held.splice(0)) {
          const id = requestId(line);
          if (id !== undefined && id !== null) o.output.write(`${JSON.stringify(rpcError(id, error))}\n`);
        }
        lines.close();
        resolve(1);
      });
    });
    ws.on('error', (e) => {
      o.log('error', 'socket error', { error: e.message });
      resolve(1);
    });
    ws.on('close', (code, reason) => {
      const ended = inputEnded;
      lines.close();
      if (code !== 1000) o.log('error', 'the hub closed the connection', { code, reason: reason.toString(), unanswered: waiting.size });
      resolve(code === 1000 || (ended && waiting.size === 0) ? 0 : 1);
    });
  });
}

/** The JSON-RPC error for an upgrade refused with 429 (problem+json `RATE_LIMITED` and Retry-After). */
function limitRefusal(
  problem: string,
  retryAfter: string | string[] | undefined,
): { code: number; message: string; data: { code: string; retryAfterMs?: number } } {
  let detail = 'a tenant limit is used up';
  try {
    const p = JSON.parse(problem) as { detail?: unknown };
    if (typeof p.detail === 'string') detail = p.detail;
  } catch {
    // not problem+json: the generic text stands
  }
  const seconds = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  return { code: RPC.INTERNAL_ERROR, message: detail, data: { code: 'RATE_LIMITED', ...(seconds > 0 ? { retryAfterMs: seconds * 1000 } : {}) } };
}
