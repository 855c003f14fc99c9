import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { REPO_ROOT } from './processes';

// OpenEnv's surfaces as the e2e specs drive them: one JSON request over HTTP, the
// request/response `/ws` client OpenEnv's Python client is (also reading `/harness` streams),
// and the upstream fixtures in shared/fixtures/openenv.

export type WireJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON read by tests

/** meta-pytorch/OpenEnv's recorded requests and answers, in the shared folder beside the repo. */
export const OPENENV_FIXTURES = resolve(REPO_ROOT, '../shared/fixtures/openenv');

/** One fixture (`http/...`, `ws/...`, `mcp/...`), parsed. */
export const openEnvFixture = (rel: string): unknown => JSON.parse(readFileSync(resolve(OPENENV_FIXTURES, rel), 'utf8'));

/** One request with the API key; a string body is sent as it is (to send malformed JSON), anything else as JSON. */
export async function hubJson(method: string, url: string, apiKey: string, body?: unknown): Promise<{ status: number; body: WireJson }> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as WireJson };
}

/** A WebSocket client that keeps every JSON frame, as OpenEnv's client reads them. */
export class OpenEnvWs {
  readonly frames: WireJson[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      this.frames.push(JSON.parse(raw.toString()) as WireJson);
      this.waiters.splice(0).forEach((w) => w());
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  /** Opens `pathname` (e.g. `/v1/openenv/<env>/ws`) on the hub at `baseUrl` with the API key. */
  static open(baseUrl: string, pathname: string, apiKey: string, headers: Record<string, string> = {}): Promise<OpenEnvWs> {
    const u = new URL(pathname, baseUrl);
    u.protocol = 'ws:';
    const ws = new WebSocket(u, { headers: { ...headers, Authorization: `Bearer ${apiKey}` } });
    const c = new OpenEnvWs(ws);
    return new Promise((resolveOpen, reject) => {
      ws.once('open', () => resolveOpen(c));
      ws.once('error', reject);
    });
  }

  async until(what: string, pred: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(-2000)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** Sends a frame and waits for the next answer (OpenEnv's client is request/response on /ws). */
  async ask(frame: unknown): Promise<WireJson> {
    const n = this.frames.length;
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    await this.until('an answer', () => this.frames.length > n);
    return this.frames[n];
  }

  close(): void {
    this.ws.close();
  }
}
