import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';

export interface BridgeOptions {
  hubUrl: string;
  apiKey: string;
  input: Readable;
  output: Writable;
  log: (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;
}

/** `ws(s)://host/v1/acp` for an `http(s)://host` hub URL. */
export function acpSocketUrl(hubUrl: string): string {
  const u = new URL(hubUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/v1/acp`;
  return u.toString();
}

/**
 * Pipes newline-delimited JSON-RPC between stdio and `WS /v1/acp`: one stdin line → one text
 * frame, one frame → one stdout line. Lines typed before the socket opens are held, in order.
 * Resolves with the exit code when either side ends.
 */
export function runAcpBridge(o: BridgeOptions): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(acpSocketUrl(o.hubUrl), { headers: { Authorization: `Bearer ${o.apiKey}` } });
    const held: string[] = [];
    let inputEnded = false;
    const lines = createInterface({ input: o.input, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      if (ws.readyState === WebSocket.OPEN) ws.send(line);
      else held.push(line);
    });
    lines.on('close', () => {
      inputEnded = true;
      // The editor went away: closing the socket detaches this client from its sessions.
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'client exit');
      else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    });
    ws.on('open', () => {
      o.log('info', 'connected', { url: acpSocketUrl(o.hubUrl) });
      held.splice(0).forEach((l) => ws.send(l));
      if (inputEnded) ws.close(1000, 'client exit');
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) o.output.write(`${data.toString()}\n`);
    });
    ws.on('unexpected-response', (_req, res) => {
      o.log('error', 'the hub refused the connection', { status: res.statusCode });
      resolve(res.statusCode === 401 ? 3 : 1);
    });
    ws.on('error', (e) => {
      o.log('error', 'socket error', { error: e.message });
      resolve(1);
    });
    ws.on('close', (code) => {
      lines.close();
      resolve(inputEnded || code === 1000 ? 0 : 1);
    });
  });
}
