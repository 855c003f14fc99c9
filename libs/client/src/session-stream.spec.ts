import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HarnessState } from './api-types';
import { HubError } from './errors';
import { HubHttp } from './http';
import { SessionStream, randomId } from './session-stream';

// The stream against a WebSocket server of our own making, which does to it what a hub and a
// network do: drop it mid-turn, send a frame again after a reconnect, refuse an upgrade with 429.

interface Conn {
  ws: WebSocket;
  url: URL;
  got: unknown[];
}

let server: WebSocketServer;
let conns: Conn[];
let onConnection: (c: Conn, n: number) => void;
/** Answers the n-th upgrade with this HTTP status and headers instead of 101. */
let refuse: (n: number) => { status: number; headers?: Record<string, string> } | undefined;
let upgrades: number[];
const streams: SessionStream[] = [];

beforeEach(async () => {
  conns = [];
  upgrades = [];
  refuse = () => undefined;
  server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (_info, done) => {
      upgrades.push(Date.now());
      const r = refuse(upgrades.length);
      if (r) return done(false, r.status, 'refused', r.headers);
      done(true);
    },
  });
  await new Promise((r) => server.once('listening', r));
  server.on('connection', (ws, req) => {
    const c: Conn = { ws, url: new URL(req.url ?? '/', 'http://x'), got: [] };
    ws.on('message', (raw) => c.got.push(JSON.parse(raw.toString())));
    conns.push(c);
    onConnection(c, conns.length);
  });
});

afterEach(async () => {
  streams.splice(0).forEach((s) => s.close());
  server.clients.forEach((c) => c.terminate());
  await new Promise((r) => server.close(r));
});

function open(o: ConstructorParameters<typeof SessionStream>[2] = {}): SessionStream {
  const http = new HubHttp({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' });
  const s = new SessionStream(http, 's1', { baseDelayMs: 20, ...o });
  streams.push(s);
  return s;
}

const running = { status: 'running', messages: [{ id: 'a1', role: 'assistant', content: 'Hel', status: 'streaming', turnId: 't1' }] } as HarnessState;
const send = (ws: WebSocket, frame: object) => ws.send(JSON.stringify(frame));
const append = (cursor: number, value: string) => ({ type: 'delta', cursor, operations: [{ type: 'append-text', path: ['messages', '0', 'content'], value }] });

it('resumes after a dropped socket with ?after= its cursor: no gap, and a frame sent again is not applied twice', async () => {
  onConnection = (c, n) => {
    if (n === 1) {
      send(c.ws, { type: 'state', state: running, cursor: 10 });
      send(c.ws, append(11, 'lo'));
      setTimeout(() => c.ws.terminate(), 50); // the network drops it
    } else {
      send(c.ws, append(11, 'lo')); // overlap: already applied
      send(c.ws, append(12, ' world'));
      send(c.ws, { type: 'delta', cursor: 13, operations: [{ type: 'set', path: ['status'], value: 'idle' }] });
    }
  };
  const s = open();
  await s.waitFor((st) => st.status === 'idle', { timeoutMs: 5_000 });
  expect(s.state?.messages[0]?.content).toBe('Hello world');
  expect(conns.map((c) => c.url.searchParams.get('after'))).toEqual([null, '11']);
  expect(s.duplicatesDropped).toBe(1);
  expect(s.cursor).toBe(13);
});

it('a resumed stream folds onto the view it was given, from its cursor', async () => {
  onConnection = (c) => send(c.ws, append(8, 'lo'));
  const s = open({ resume: { state: running, cursor: 7 } });
  await s.waitFor((st) => st.messages[0]?.content === 'Hello', { timeoutMs: 5_000 });
  expect(conns[0]?.url.searchParams.get('after')).toBe('7');
});

it('an upgrade refused with 429 and Retry-After is tried again no sooner than it says', async () => {
  refuse = (n) => (n === 1 ? { status: 429, headers: { 'Retry-After': '1', 'Content-Type': 'application/problem+json' } } : undefined);
  onConnection = (c) => send(c.ws, { type: 'state', state: running, cursor: 1 });
  const retries: number[] = [];
  const s = open();
  s.subscribe((e) => e.type === 'retry' && retries.push(e.delayMs));
  await s.waitFor(() => true, { timeoutMs: 5_000 });
  expect(retries).toEqual([1_000]);
  expect((upgrades[1] as number) - (upgrades[0] as number)).toBeGreaterThanOrEqual(1_000);
});

it('a refusal no retry can fix (401) closes the stream with a HubError', async () => {
  refuse = () => ({ status: 401 });
  onConnection = () => undefined;
  const s = open();
  await expect(s.waitFor(() => true, { timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'HTTP_401', status: 401 });
  expect(s.link).toBe('closed');
  expect(upgrades).toHaveLength(1);
});

it("a policy close (1008) after an error frame ends the stream with the frame's code", async () => {
  onConnection = (c) => {
    send(c.ws, { type: 'error', code: 'forbidden', message: 'not yours' });
    c.ws.close(1008, 'session not readable with this key');
  };
  const s = open();
  const err = (await s.waitFor(() => true, { timeoutMs: 5_000 }).catch((e: unknown) => e)) as HubError;
  expect(err).toBeInstanceOf(HubError);
  expect(err.code).toBe('forbidden');
  expect(conns).toHaveLength(1);
});

it('a cursor the hub refuses (cursor_out_of_range) starts the stream again from a snapshot', async () => {
  onConnection = (c, n) => {
    if (n === 1) {
      send(c.ws, { type: 'error', code: 'cursor_out_of_range', message: 'cursor 99 is ahead of the log (head 5)' });
      c.ws.close(1008, 'cannot open session');
    } else send(c.ws, { type: 'state', state: running, cursor: 5 });
  };
  const s = open({ resume: { state: running, cursor: 99 } });
  await s.waitFor(() => s.cursor === 5, { timeoutMs: 5_000 });
  expect(conns.map((c) => c.url.searchParams.get('after'))).toEqual(['99', null]);
});

describe('submit', () => {
  const turnShows = (cursor: number, id: string) => ({
    type: 'delta',
    cursor,
    operations: [{ type: 'set', path: ['messages', '1'], value: { id: 'u', role: 'user', content: 'p', status: 'complete', turnId: id } }],
  });

  it('sends the same id again after a drop, and resolves when the turn shows', async () => {
    onConnection = (c, n) => {
      if (n === 1) {
        send(c.ws, { type: 'state', state: running, cursor: 1 });
        c.ws.on('message', () => c.ws.terminate()); // lost with the submit
      } else c.ws.on('message', () => send(c.ws, turnShows(2, 'key-1')));
    };
    const s = open();
    await expect(s.submit('p', { idempotencyKey: 'key-1' })).resolves.toBe('key-1');
    expect(conns.map((c) => c.got)).toEqual([
      [{ type: 'commands', commands: [{ type: 'submit', prompt: 'p', id: 'key-1' }] }],
      [{ type: 'commands', commands: [{ type: 'submit', prompt: 'p', id: 'key-1' }] }],
    ]);
  });

  it("is sent again after a rate_limited frame's retryAfterMs, not before", async () => {
    const sent: number[] = [];
    onConnection = (c) => {
      send(c.ws, { type: 'state', state: running, cursor: 1 });
      c.ws.on('message', () => {
        sent.push(Date.now());
        if (sent.length === 1) send(c.ws, { type: 'error', code: 'rate_limited', message: 'wait', retryAfterMs: 300 });
        else send(c.ws, turnShows(2, 'key-2'));
      });
    };
    const s = open();
    await expect(s.submit('p', { idempotencyKey: 'key-2' })).resolves.toBe('key-2');
    expect(sent).toHaveLength(2);
    expect((sent[1] as number) - (sent[0] as number)).toBeGreaterThanOrEqual(300);
  });

  it('rejects with the error frame that answers it (busyPolicy reject on a busy session)', async () => {
    onConnection = (c) => {
      send(c.ws, { type: 'state', state: running, cursor: 1 });
      c.ws.on('message', () => send(c.ws, { type: 'error', code: 'session_busy', message: 'a turn runs' }));
    };
    const s = open();
    await expect(s.submit('p', { busyPolicy: 'reject' })).rejects.toMatchObject({ code: 'session_busy' });
    expect(conns[0]?.got).toEqual([{ type: 'commands', commands: [expect.objectContaining({ type: 'submit', busyPolicy: 'reject' })] }]);
  });
});

it('makes a submit id without crypto.randomUUID, which a page served over plain HTTP off localhost lacks', () => {
  const uuid = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(globalThis.crypto), 'randomUUID');
  Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
  try {
    const ids = [randomId(), randomId()];
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[1]).not.toBe(ids[0]);
  } finally {
    delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    expect(typeof globalThis.crypto.randomUUID).toBe(uuid ? 'function' : 'undefined');
  }
});
