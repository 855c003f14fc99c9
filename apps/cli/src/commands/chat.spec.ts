import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import type { HarnessState } from '@hub/domain';
import { chat, CHAT_EXIT } from './chat';

// `hub chat` against a hub of our own making: what it is sent is exactly what a busy hub sends
// when settling lags (everything that settled together arrives as one delta). As the hub does,
// it makes the submit's id the turn's id.

const earlier: HarnessState = {
  status: 'running',
  messages: [
    { id: 'u1', role: 'user', content: 'write "hi" to b.txt', status: 'complete', turnId: 't1' },
    {
      id: 'a1',
      role: 'assistant',
      content: '',
      status: 'streaming',
      turnId: 't1',
      toolCalls: [{ id: 'c1', name: 'write_file', status: 'running', approval: { id: 'ap1', status: 'pending', riskTier: 'medium', reason: 'write_file' } }],
    },
  ],
};

let server: WebSocketServer;
let url: string;
let onSubmit: (ws: WebSocket, turnId: string) => void;
let out: string[];
let err: string[];

beforeEach(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'state', state: earlier, cursor: 10 }));
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as { commands: { type: string; id: string }[] };
      if (msg.commands[0].type === 'submit') onSubmit(ws, msg.commands[0].id);
    });
  });
  out = [];
  err = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
  jest.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await new Promise((r) => server.close(r));
});

const run = (prompt: string) => chat({ hubUrl: url, apiKey: 'k', sessionId: 's', prompt, approvals: 'deny' });
const user = (id: string, content: string, turnId: string) => ({ id, role: 'user', content, status: 'complete', turnId });
const answer = (id: string, content: string, turnId: string, extra = {}) => ({ id, role: 'assistant', content, status: 'complete', turnId, ...extra });
const delta = (ws: WebSocket, cursor: number, ...operations: unknown[]) => ws.send(JSON.stringify({ type: 'delta', operations, cursor }));
const set = (path: string[], value: unknown) => ({ type: 'set', path, value });

it('says it is queued, and ends with exit 0 when its whole turn arrives in one delta (never seen running)', async () => {
  onSubmit = (ws, t2) =>
    delta(
      ws,
      20,
      set(['messages', '1', 'toolCalls', '0', 'approval', 'status'], 'approved'),
      set(['messages', '2'], user('u2', 'read notes.txt', t2)),
      set(['messages', '3'], answer('a2', 'the notes say hi', t2)),
      set(['status'], 'idle'),
    );
  expect(await run('read notes.txt')).toBe(CHAT_EXIT.ok);
  expect(err.join('')).toContain("queued: the session's current turn waits for approval ap1");
  expect(out.join('')).toContain('the notes say hi');
});

it('ends when a later turn has started after its own, and prints only its own answer', async () => {
  onSubmit = (ws, t2) => {
    delta(ws, 20, set(['messages', '2'], user('u2', 'mine', t2)), set(['messages', '3'], answer('a2', 'first ', t2, { status: 'streaming' })));
    delta(
      ws,
      30,
      { type: 'append-text', path: ['messages', '3', 'content'], value: 'answer' },
      set(['messages', '4'], user('u3', 'theirs', 't3')),
      set(['messages', '5'], answer('a3', 'not mine', 't3')),
    );
  };
  expect(await run('mine')).toBe(CHAT_EXIT.ok);
  expect(out.join('')).toBe('first answer\n');
});

it('a turn of its own that failed: exit 1 with the error, even when it arrives all at once', async () => {
  onSubmit = (ws, t2) =>
    delta(
      ws,
      20,
      set(['messages', '2'], user('u2', 'fail', t2)),
      set(['messages', '3'], answer('a2', '', t2, { status: 'error', stopReason: 'failed' })),
      set(['error'], 'AUTH: no key'),
      set(['status'], 'error'),
    );
  expect(await run('fail')).toBe(CHAT_EXIT.failed);
  expect(err.join('')).toContain('turn failed: AUTH: no key');
});

it('keeps waiting while its turn runs', async () => {
  let sent: WebSocket | undefined;
  onSubmit = (ws, t2) => {
    sent = ws;
    delta(ws, 20, set(['messages', '2'], user('u2', 'slow', t2)), set(['messages', '3'], answer('a2', 'part', t2, { status: 'streaming' })));
  };
  const done = run('slow');
  let ended = false;
  void done.then(() => (ended = true));
  await new Promise((r) => setTimeout(r, 200));
  expect(ended).toBe(false);
  delta(sent as WebSocket, 30, set(['status'], 'idle'));
  expect(await done).toBe(CHAT_EXIT.ok);
});
