import { createServer, type Server } from 'node:http';
import { PassThrough } from 'node:stream';
import { WebSocketServer } from 'ws';
import { acpSocketUrl, runAcpBridge } from './bridge';

describe('acpSocketUrl', () => {
  it('maps the hub URL to its ACP WebSocket', () => {
    expect(acpSocketUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/v1/acp');
    expect(acpSocketUrl('https://hub.example.com/base/')).toBe('wss://hub.example.com/base/v1/acp');
  });
});

// Issue 11 defect 8: a stdin line over the hub's frame limit closed the socket (the hub refuses
// the frame) and `hub acp` exited 0 with the later requests unanswered. A real WebSocket server
// with the hub's limit stands in for the hub: it answers every request with its id.
describe('runAcpBridge over the frame limit', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer();
    const wss = new WebSocketServer({ server, path: '/v1/acp', maxPayload: 1024 });
    wss.on('connection', (ws) =>
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString()) as { id: number };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echoed: m.id } }));
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('answers the long line with -32600, goes on, and exits 0 once every request is answered', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (d: Buffer) => (out += d.toString()));
    const done = runAcpBridge({ hubUrl: url, apiKey: 'k', input, output, log: () => undefined, maxLineBytes: 1024 });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: 'x'.repeat(2000) } })}\n`);
    input.end(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} })}\n`);
    expect(await done).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result?: unknown; error?: { code: number; message: string } });
    expect(lines.find((l) => l.id === 2)?.error).toEqual(expect.objectContaining({ code: -32600, message: expect.stringContaining('too large') }));
    expect(
      lines
        .filter((l) => l.result)
        .map((l) => l.id)
        .sort(),
    ).toEqual([1, 3]);
  });
});

// Issue 16: a tenant at its open-sockets limit is refused at the upgrade (HTTP 429 problem+json
// with Retry-After). An editor speaks JSON-RPC, not HTTP: each request it sent gets the refusal
// in ACP's terms, as the hub's own socket would answer a used-up limit.
describe('runAcpBridge refused at the upgrade for a tenant limit', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(404).end());
    server.on('upgrade', (_req, socket) => {
      const body = JSON.stringify({
        type: 'urn:hub:error:rate_limited',
        title: 'RATE_LIMITED',
        status: 429,
        detail: 'this tenant may hold 2 WebSockets open and holds 2',
        code: 'RATE_LIMITED',
      });
      // A moment later, as a hub that first checked the key and counted the tenant's sockets.
      setTimeout(
        () =>
          socket.end(
            `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\nRetry-After: 5\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          ),
        200,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('answers every request sent so far with RATE_LIMITED and the wait, then exits 1', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (d: Buffer) => (out += d.toString()));
    const done = runAcpBridge({ hubUrl: url, apiKey: 'k', input, output, log: () => undefined });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: {} })}\n`); // a notification: no answer
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'two', method: 'session/list', params: {} })}\n`);
    expect(await done).toBe(1);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const refusal = (id: number | string) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: 'this tenant may hold 2 WebSockets open and holds 2', data: { code: 'RATE_LIMITED', retryAfterMs: 5000 } },
    });
    expect(lines).toEqual([refusal(1), refusal('two')]);
  });
});
