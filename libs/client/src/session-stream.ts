import type { HarnessState } from './api-types';
import { HubError, retryAfterMs } from './errors';
import { foldFrame, turnOutcome, type BusyPolicy, type SessionView, type TransportCommand, type TransportFrame } from './frames';
import type { HubHttp } from './http';
import { OPEN, openSocket, socketConstructor, type SocketConstructor, type SocketLike, type UpgradeRefusal } from './web-socket';

export type Link = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface StreamOptions {
  /** Go on from a view kept earlier: connect with `?after=` its cursor and fold onto its state. */
  resume?: SessionView;
  /** Consecutive failed connections (none delivering a frame) before the stream gives up; default 10. */
  maxFailures?: number;
  /** Backoff between reconnections without a Retry-After: doubles from baseDelayMs up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  WebSocket?: SocketConstructor;
}

export type StreamEvent =
  | { type: 'frame'; frame: TransportFrame; duplicate: boolean }
  | { type: 'link'; link: Link }
  | { type: 'retry'; attempt: number; delayMs: number; refusal?: UpgradeRefusal; closeCode?: number };

interface PendingSubmit {
  command: Extract<TransportCommand, { type: 'submit' }>;
  resolve: (turnId: string) => void;
  reject: (e: HubError) => void;
}

/** Close codes after which connecting again cannot help: a policy refusal (bad session, no access), a revoked key, a normal end. */
const FINAL_CLOSES = new Set([1000, 1008, 4401]);
/**
 * Error codes a 1008 close may follow that another connection can get past: the hub's trouble
 * (`internal`, `timeout`), or a cursor the hub no longer serves (the stream starts again from a
 * snapshot).
 */
const TRANSIENT_CODES = new Set(['internal', 'timeout', 'cursor_out_of_range']);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One session over the Harness transport WebSocket, kept live: a `state` snapshot, then deltas
 * folded in order. A dropped socket (a network blip, an ingress killed) reconnects with `?after=`
 * the last cursor, so the hub sends exactly what was missed: no gap, and a frame at or before
 * the cursor is dropped, so no duplicate (frames.ts). An upgrade refused with 429/503 is tried
 * again after its Retry-After. The one resume loop of the project (ADR 0046).
 */
export class SessionStream {
  state: HarnessState | null;
  cursor: number | null;
  link: Link = 'connecting';
  /** Why the stream closed for good (null: closed by `close()`). */
  closeError: HubError | null = null;
  /** Frames dropped as already applied, across reconnections. */
  duplicatesDropped = 0;
  /** Connections made, the first included. */
  connections = 0;

  private socket: SocketLike | null = null;
  private listeners = new Set<(e: StreamEvent) => void>();
  private outbox: string[] = [];
  private pending: PendingSubmit[] = [];
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly http: HubHttp,
    readonly sessionId: string,
    private readonly opts: StreamOptions = {},
  ) {
    this.state = opts.resume?.state ?? null;
    this.cursor = opts.resume?.cursor ?? null;
    void this.run();
  }

  /** Hears every frame, link change and retry; returns the unsubscribe. */
  subscribe(fn: (e: StreamEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Sends commands now, or as soon as a socket is open. */
  send(commands: TransportCommand[]): void {
    const text = JSON.stringify({ type: 'commands', commands });
    if (this.socket?.readyState === OPEN) this.socket.send(text);
    else this.outbox.push(text);
  }

  /**
   * Submits a prompt and resolves with its turn id once the session shows the turn. The
   * idempotency key is the turn id (a random one by default): the stream sends it again after a
   * reconnection, and after a `rate_limited` refusal once its `retryAfterMs` has passed, and the
   * hub runs it once. An error frame answering it (`session_busy` with busyPolicy `reject`, say)
   * rejects with a HubError.
   */
  submit(prompt: string, o: { idempotencyKey?: string; busyPolicy?: BusyPolicy } = {}): Promise<string> {
    const command = {
      type: 'submit' as const,
      prompt,
      id: o.idempotencyKey ?? randomId(),
      ...(o.busyPolicy ? { busyPolicy: o.busyPolicy } : {}),
    };
    return new Promise<string>((resolve, reject) => {
      this.pending.push({ command, resolve, reject });
      this.send([command]);
      this.settleSubmits();
    });
  }

  cancel(): void {
    this.send([{ type: 'cancel' }]);
  }

  approve(approvalId: string, reason?: string): void {
    this.send([{ type: 'approve', approvalId, ...(reason === undefined ? {} : { reason }) }]);
  }

  deny(approvalId: string, reason?: string): void {
    this.send([{ type: 'deny', approvalId, ...(reason === undefined ? {} : { reason }) }]);
  }

  /** Resolves with the state once `pred` holds of it; rejects when the stream closes for good or after `timeoutMs`. */
  waitFor(pred: (state: HarnessState) => boolean, o: { timeoutMs?: number; what?: string } = {}): Promise<HarnessState> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.state && pred(this.state)) return done(() => resolve(this.state as HarnessState));
        if (this.link === 'closed')
          return done(() => reject(this.closeError ?? new HubError('closed', `the stream closed before ${o.what ?? 'the condition held'}`)));
      };
      const timer =
        o.timeoutMs === undefined
          ? undefined
          : setTimeout(
              () =>
                done(() => reject(new HubError('timeout', `timed out after ${o.timeoutMs} ms waiting for ${o.what ?? 'a condition'}; cursor ${this.cursor}`))),
              o.timeoutMs,
            );
      const off = this.subscribe(check);
      const done = (f: () => void) => {
        off();
        clearTimeout(timer);
        f();
      };
      check();
    });
  }

  /** Resolves with how turn `turnId` ended ('ok' or 'failed'). */
  async turnEnded(turnId: string, o: { timeoutMs?: number } = {}): Promise<'ok' | 'failed'> {
    const state = await this.waitFor((s) => turnOutcome(s, turnId) !== undefined, { ...o, what: `turn ${turnId} to end` });
    return turnOutcome(state, turnId) as 'ok' | 'failed';
  }

  /** The view as it stands: what another stream resumes from. */
  view(): SessionView {
    return { state: this.state, cursor: this.cursor };
  }

  close(): void {
    this.stopped = true;
    this.socket?.close(1000);
    this.finish(null);
  }

  private emit(e: StreamEvent): void {
    for (const fn of [...this.listeners]) fn(e);
  }

  private setLink(link: Link): void {
    if (this.link === link || this.link === 'closed') return;
    this.link = link;
    this.emit({ type: 'link', link });
  }

  private finish(error: HubError | null): void {
    if (this.link === 'closed') return;
    this.closeError = error;
    for (const p of this.pending.splice(0)) p.reject(error ?? new HubError('closed', 'the stream was closed'));
    this.setLink('closed');
  }

  /** Connects, and connects again after each drop until the stream closes for good. */
  private async run(): Promise<void> {
    let Ctor: SocketConstructor;
    try {
      Ctor = await socketConstructor(this.opts.WebSocket);
    } catch (e) {
      return this.finish(new HubError('unsupported', (e as Error).message));
    }
    while (!this.stopped) {
      const ended = await this.connectOnce(Ctor);
      if (this.stopped || ended.final) return this.finish(ended.final ?? null);
      this.failures = ended.gotFrame ? 0 : this.failures + 1;
      if (this.failures >= (this.opts.maxFailures ?? 10))
        return this.finish(ended.error ?? new HubError('unreachable', `no connection to the hub after ${this.failures} tries`));
      const backoff = Math.min(this.opts.maxDelayMs ?? 5_000, (this.opts.baseDelayMs ?? 250) * 2 ** Math.max(0, this.failures - 1));
      const delayMs = ended.waitMs ?? (ended.gotFrame ? 0 : backoff);
      this.setLink('reconnecting');
      this.emit({ type: 'retry', attempt: this.connections, delayMs, refusal: ended.refusal, closeCode: ended.closeCode });
      if (delayMs > 0) await sleep(delayMs);
    }
  }

  private connectOnce(
    Ctor: SocketConstructor,
  ): Promise<{ final?: HubError; error?: HubError; gotFrame: boolean; waitMs?: number; refusal?: UpgradeRefusal; closeCode?: number }> {
    const url = this.http.url('/v1/transport', { session: this.sessionId, after: this.cursor ?? undefined });
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.connections++;
    return new Promise((resolve) => {
      let refusal: UpgradeRefusal | undefined;
      let lastError: TransportFrame | undefined;
      let gotFrame = false;
      let socket: SocketLike;
      try {
        socket = openSocket(Ctor, url, this.http.apiKey, (r) => (refusal = r));
      } catch (e) {
        return resolve({ final: new HubError('invalid_request', (e as Error).message), gotFrame });
      }
      this.socket = socket;
      socket.addEventListener('open', () => {
        this.setLink('live');
        const queued = this.outbox.splice(0);
        for (const text of queued) socket.send(text);
        // A submit not yet seen may never have reached the hub before the drop: its id makes sending it again safe.
        for (const p of this.pending) {
          const text = JSON.stringify({ type: 'commands', commands: [p.command] });
          if (!queued.includes(text)) socket.send(text);
        }
      });
      socket.addEventListener('message', (m) => {
        let frame: TransportFrame;
        try {
          frame = JSON.parse(String(m.data)) as TransportFrame;
        } catch {
          return;
        }
        gotFrame = true;
        if (frame.type === 'error') {
          lastError = frame;
          if (frame.code === 'cursor_out_of_range') this.cursor = null; // start over from a snapshot
          this.answerSubmit(frame);
        }
        const folded = foldFrame({ state: this.state, cursor: this.cursor }, frame);
        if (folded.duplicate) this.duplicatesDropped++;
        this.state = folded.state;
        this.cursor = folded.cursor;
        this.settleSubmits();
        this.emit({ type: 'frame', frame, duplicate: folded.duplicate });
      });
      socket.addEventListener('error', () => undefined); // a close follows
      socket.addEventListener('close', (e) => {
        if (this.socket === socket) this.socket = null;
        const errorOf = (f: TransportFrame | undefined) =>
          f?.type === 'error' ? new HubError(f.code ?? 'error', f.message, f.retryAfterMs === undefined ? {} : { retryAfterMs: f.retryAfterMs }) : undefined;
        if (refusal) {
          const err = new HubError(codeOfRefusal(refusal), `the hub refused the connection: HTTP ${refusal.status}`, {
            status: refusal.status,
            retryAfterMs: retryAfterMs(refusal.retryAfterHeader, Date.now()),
          });
          if ([400, 401, 403, 404].includes(refusal.status)) return resolve({ final: err, gotFrame, refusal });
          return resolve({ error: err, gotFrame, waitMs: err.retryAfterMs, refusal, closeCode: e.code });
        }
        const transient = e.code === 1008 && lastError?.type === 'error' && TRANSIENT_CODES.has(lastError.code ?? '');
        if (FINAL_CLOSES.has(e.code) && !transient)
          return resolve({
            final: errorOf(lastError) ?? new HubError('closed', `the hub closed the stream: ${e.code} ${e.reason}`.trim()),
            gotFrame,
            closeCode: e.code,
          });
        resolve({ error: errorOf(lastError), gotFrame, closeCode: e.code });
      });
    });
  }

  /** An error frame answers the oldest submit not yet seen; a `rate_limited` one is sent again after its wait. */
  private answerSubmit(frame: Extract<TransportFrame, { type: 'error' }>): void {
    const p = this.pending[0];
    if (!p) return;
    if (frame.code === 'rate_limited' && frame.retryAfterMs !== undefined && frame.retryAfterMs <= this.http.policy.maxRetryAfterMs) {
      this.emit({ type: 'retry', attempt: this.connections, delayMs: frame.retryAfterMs });
      void sleep(frame.retryAfterMs).then(() => {
        if (this.pending.includes(p)) this.send([p.command]);
      });
      return;
    }
    this.pending.shift();
    p.reject(new HubError(frame.code ?? 'error', frame.message, frame.retryAfterMs === undefined ? {} : { retryAfterMs: frame.retryAfterMs }));
  }

  private settleSubmits(): void {
    const turns = new Set(this.state?.messages.map((m) => m.turnId));
    this.pending = this.pending.filter((p) => {
      if (!turns.has(p.command.id)) return true;
      p.resolve(p.command.id as string);
      return false;
    });
  }
}

/**
 * A random UUID (v4). `crypto.randomUUID` exists only in a secure context: a console served over
 * plain HTTP on a LAN address has `getRandomValues` alone.
 */
export function randomId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function codeOfRefusal(r: UpgradeRefusal): string {
  try {
    const code = (JSON.parse(r.body) as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  } catch {
    // not problem+json
  }
  return `HTTP_${r.status}`;
}
