import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a test receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What a path answers its n-th request with; `hang`: never. */
export type Answer = (r: Received, n: number) => { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real HTTP receiver on loopback, as a user would run one: it records every request and
 * verifies signatures with the `standardwebhooks` package.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly answers = new Map<string, Answer>();
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const r = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const got = { path: req.url ?? '/', headers: req.headers, body, at: Date.now() };
        r.received.push(got);
        const answer: Answer = r.answers.get(got.path) ?? (() => ({ status: 200 }));
        const a = answer(got, r.received.filter((x) => x.path === got.path).length);
        if (a === 'hang') return;
        setTimeout(() => {
          res.writeHead(a.status, a.headers ?? {});
          res.end();
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  answer(path: string, a: Answer): void {
    this.answers.set(path, a);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** The body, verified with `secret` (throws as standardwebhooks does when it does not verify). */
  static verify<T = { type: string; timestamp: string; data: Record<string, unknown> }>(secret: string, r: Pick<Received, 'headers' | 'body'>): T {
    const h = (n: string) => String(r.headers[n] ?? '');
    return new Webhook(secret).verify(r.body, {
      'webhook-id': h('webhook-id'),
      'webhook-timestamp': h('webhook-timestamp'),
      'webhook-signature': h('webhook-signature'),
    }) as T;
  }

  async close(): Promise<void> {
    const closed = new Promise((r) => this.server.close(r));
    this.server.closeAllConnections();
    await closed;
  }
}
