import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake server received: enough to assert on the provider's wire format. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A scripted reply: an SSE stream (each item one `data:`/`event:` frame) or a JSON error. */
export type FakeReply = { kind: 'sse'; frames: { event?: string; data: unknown }[] } | { kind: 'json'; status: number; body: unknown };

/**
 * A real HTTP server on 127.0.0.1 that speaks just enough of the OpenAI chat completions and
 * Anthropic messages wires for provider tests: every request is recorded and answered with the
 * next scripted reply. Test support only; not exported from the lib.
 */
export class FakeLlmServer {
  readonly received: ReceivedRequest[] = [];
  private readonly replies: FakeReply[] = [];
  private server: Server | undefined;

  /** Starts listening on an ephemeral port and returns the base URL (`http://127.0.0.1:P/v1`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  }

  reply(reply: FakeReply): this {
    this.replies.push(reply);
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : {} });
    const reply = this.replies.shift() ?? { kind: 'json', status: 500, body: { error: { message: 'no scripted reply' } } };
    if (reply.kind === 'json') {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const frame of reply.frames) {
      const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
      res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${data}\n\n`);
    }
    res.end();
  }
}
