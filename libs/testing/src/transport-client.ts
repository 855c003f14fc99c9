import WebSocket from 'ws';
import { foldFrame, type SessionView } from '@harness-hub/client';
import type { DeltaOperation, HarnessState } from '@hub/domain';

export type TransportFrame =
  | { type: 'state'; state: HarnessState; cursor: number }
  | { type: 'delta'; operations: DeltaOperation[]; cursor: number }
  | { type: 'error'; message: string; code?: string; cursor?: number };

/**
 * A real Harness transport client for tests: one socket, every frame kept, folded the way the
 * client library folds them (`foldFrame`: replace on `state`, apply ops in order on `delta`), and
 * a wait for a condition on the assembled state. Unlike the library's SessionStream it never
 * reconnects on its own (tests look at closes and resume by hand), and a delta at or before its
 * cursor, which the library drops, is a protocol violation here: waitFor fails on it.
 */
export class TransportTestClient {
  readonly frames: TransportFrame[] = [];
  state: HarnessState | null = null;
  cursor = 0;
  closeCode: number | null = null;
  /** When the first frame arrived (ms since the epoch): what a resuming client waited. */
  firstFrameAt: number | null = null;
  /** Frames the hub should not have sent (a delta it had sent already). */
  readonly violations: string[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    resumeFrom?: { state: HarnessState | null; cursor: number },
  ) {
    // A resuming client's kept state must be in place before the socket can deliver a frame: the
    // upgrade response and the first delta can arrive in one read, and ws then emits the frame
    // before an `await connect()` continuation could set it.
    if (resumeFrom) {
      this.state = resumeFrom.state;
      this.cursor = resumeFrom.cursor;
    }
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as TransportFrame;
      this.frames.push(frame);
      this.firstFrameAt ??= Date.now();
      // The library's wire types are the OpenAPI document's; the frames are the same JSON.
      const folded = foldFrame({ state: this.state, cursor: this.cursor } as unknown as SessionView, frame as Parameters<typeof foldFrame>[1]);
      if (folded.duplicate) this.violations.push(`delta at cursor ${frame.cursor} after cursor ${this.cursor}: sent twice`);
      this.state = folded.state as unknown as HarnessState | null;
      this.cursor = folded.cursor ?? this.cursor;
      this.notify();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.notify();
    });
  }

  static connect(
    url: string,
    apiKey: string | null,
    query: Record<string, string | number>,
    headers: Record<string, string> = {},
    resumeFrom?: { state: HarnessState | null; cursor: number },
  ): Promise<TransportTestClient> {
    const u = new URL(url);
    u.protocol = 'ws:';
    u.pathname = '/v1/transport';
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, String(v));
    const ws = new WebSocket(u, { headers: { ...headers, ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) } });
    const client = new TransportTestClient(ws, resumeFrom);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body, headers: res.headers })));
      });
      ws.once('error', reject);
    });
  }

  /** Reconnects to `from`'s session after its cursor and goes on from its state (a client resuming). */
  static resume(url: string, apiKey: string, session: string, from: TransportTestClient): Promise<TransportTestClient> {
    return TransportTestClient.connect(url, apiKey, { session, after: from.cursor }, {}, { state: from.state, cursor: from.cursor });
  }

  send(commands: unknown[]): void {
    this.ws.send(JSON.stringify({ type: 'commands', commands }));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  async waitFor(what: string, pred: (c: TransportTestClient) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this)) {
      if (this.violations.length > 0) throw new Error(`protocol violation while waiting for ${what}: ${this.violations.join('; ')}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${what}; state: ${JSON.stringify(this.state)?.slice(0, 2000)}; last frames: ${JSON.stringify(this.frames.slice(-5))}`,
        );
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Waits until the newest turn finished (status back to idle or error after running). */
  waitForIdle(timeoutMs?: number): Promise<void> {
    return this.waitFor(
      'the turn to end',
      (c) =>
        c.state !== null &&
        c.state.status !== 'running' &&
        c.state.messages.some((m) => m.role === 'assistant' && m.status !== 'pending' && m.status !== 'streaming'),
      timeoutMs,
    );
  }

  lastAssistant() {
    return [...(this.state?.messages ?? [])].reverse().find((m) => m.role === 'assistant');
  }

  errors(): { message: string; code?: string }[] {
    return this.frames.filter((f): f is Extract<TransportFrame, { type: 'error' }> => f.type === 'error');
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((r) => {
      this.ws.once('close', () => r());
      this.ws.close();
    });
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }
}
