import type { Socket } from 'node:net';
import { HubStack, TransportTestClient } from '@hub/testing';

// Issue 31, slow consumers: a transport client that stops reading must not hold ingress memory
// nor delay anyone else. Over HUB_WS_MAX_BUFFERED_BYTES unsent (set small here) its socket is
// closed 4008 and its feed released; it resumes by cursor with no gap and no duplicate.
//
// The paused client stops reading at the TCP level, so the kernel's buffers (about 4 MB on
// loopback: the sender's send buffer plus the receiver's window) fill before a byte waits in
// ingress: the session streams turns until the watchers have seen well over that.

jest.setTimeout(240_000);

const LIMIT = 64 * 1024;
/** More than the loopback kernel buffers take, so the paused socket's backlog must reach ingress. */
const STREAMED_BYTES = 6 * 1024 * 1024;
const MAX_TURNS = 400;
const SLOW_CONSUMER_CLOSE_CODE = 4008;

let stack: HubStack;
let tenant: { apiKey: string };
/** The long session the first case streams, and its turns: the second reads it back. */
const session = 's-slow';
let turns = 0;

beforeAll(async () => {
  stack = await HubStack.start({
    label: 'slow_consumers',
    workers: 1,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '0' },
    ingressEnv: { HUB_WS_MAX_BUFFERED_BYTES: String(LIMIT) },
  });
  tenant = await stack.createTenant('acme');
});
afterAll(() => stack?.stop());

const connect = async (session: string) => {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  return c;
};

/** The TCP socket under a ws client: pausing it stops reading at the TCP level. */
const tcp = (c: TransportTestClient) => (c.ws as unknown as { _socket: Socket })._socket;

/** Counts the bytes a client was sent (what a paused client would have had to take). */
function bytesOf(c: TransportTestClient): () => number {
  let n = 0;
  c.ws.on('message', (raw: Buffer) => (n += raw.length));
  return () => n;
}

/** Resumes by cursor from `from`'s state, again after each 4008, until the session is idle and complete. */
async function resumeToEnd(from: TransportTestClient, session: string, turns: number): Promise<{ client: TransportTestClient; reconnects: number }> {
  let client = from;
  for (let reconnects = 1; reconnects <= 20; reconnects++) {
    const next = await TransportTestClient.resume(stack.url, tenant.apiKey, session, client);
    const done = (c: TransportTestClient) =>
      c.state?.status === 'idle' && c.state.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length === turns;
    await next.waitFor('the resumed client to catch up, or be closed', (c) => done(c) || c.closeCode !== null, 60_000);
    if (done(next)) return { client: next, reconnects };
    expect(next.closeCode).toBe(SLOW_CONSUMER_CLOSE_CODE);
    client = next;
  }
  throw new Error('did not catch up in 20 resumes');
}

it('closes a client that stops reading with 4008; the others see every turn at once; it resumes by cursor to the same text', async () => {
  const submitter = await connect(session);
  const watcher = await connect(session);
  const slow = await connect(session);
  const sent = bytesOf(watcher);
  tcp(slow).pause();

  let slowestTurnMs = 0;
  while (sent() < STREAMED_BYTES && turns < MAX_TURNS) {
    const started = Date.now();
    submitter.send([{ type: 'submit', prompt: 'long answer 5000' }]);
    turns++;
    const complete = (c: TransportTestClient) =>
      c.state?.status === 'idle' && c.state.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length === turns;
    await Promise.all([submitter.waitFor(`turn ${turns} (submitter)`, complete, 30_000), watcher.waitFor(`turn ${turns} (watcher)`, complete, 30_000)]);
    slowestTurnMs = Math.max(slowestTurnMs, Date.now() - started);
  }
  expect(sent()).toBeGreaterThanOrEqual(STREAMED_BYTES);
  // The reading clients were never held up by the one that stopped: each turn reached them whole, promptly.
  expect(watcher.state).toEqual(submitter.state);
  expect(slowestTurnMs).toBeLessThan(10_000);

  // Reading again, the slow client drains what the kernel held, then finds its socket closed 4008.
  tcp(slow).resume();
  await slow.waitFor('the slow consumer close', (c) => c.closeCode !== null, 30_000);
  expect(slow.closeCode).toBe(SLOW_CONSUMER_CLOSE_CODE);
  // ...having missed part of the stream, which the resume must bring, exactly once.
  expect(slow.state).not.toEqual(watcher.state);

  const { client: resumed, reconnects } = await resumeToEnd(slow, session, turns);
  // Its backlog is history it asked for, not a live stream it fails to read: one resume does.
  expect(reconnects).toBe(1);
  // Nothing missed, nothing twice: the same assistant text as a client that watched it all.
  expect(resumed.state).toEqual(watcher.state);
  const fresh = await connect(session);
  expect(fresh.state).toEqual(watcher.state);
  await Promise.all([submitter.close(), watcher.close(), resumed.close(), fresh.close()]);
});

it('sends a backlog far over the limit to a client that reads it: history asked for is not a slow consumer', async () => {
  expect(turns).toBeGreaterThan(0);
  const all = await TransportTestClient.connect(stack.url, tenant.apiKey, { session, after: 0 }, {}, { state: { status: 'idle', messages: [] }, cursor: 0 });
  // Not reading while the backlog is written: all of it waits in the kernel and in ingress, far
  // over the limit, and must still be sent, since the client asked for it.
  tcp(all).pause();
  await new Promise((r) => setTimeout(r, 2000));
  tcp(all).resume();
  await all.waitFor(
    'the whole history',
    (c) => c.state?.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length === turns || c.closeCode !== null,
    60_000,
  );
  expect(all.closeCode).toBeNull();
  const fresh = await connect(session);
  expect(all.state).toEqual(fresh.state);
  await Promise.all([all.close(), fresh.close()]);
});
