import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventFeed, type FeedEvent, type FeedLink } from './event-feed';
import { HubHttp } from './http';
import { Sessions } from './sessions';

// The feed against a real HTTP server that speaks Server-Sent Events as the hub's feeds do
// (`event: ready` with a position, events with `id:`) and ends or drops them as the test scripts.

let server: Server;
let seen: { url: URL; headers: IncomingMessage['headers'] }[];
let answer: (n: number, res: ServerResponse) => void;
const feeds: EventFeed[] = [];

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    seen.push({ url: new URL(req.url ?? '/', 'http://x'), headers: req.headers });
    answer(seen.length, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterEach(async () => {
  feeds.splice(0).forEach((f) => f.close());
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const http = (o: { apiKey?: string; headers?: Record<string, string> } = { apiKey: 'k' }) =>
  new HubHttp({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retry: { attempts: 1 }, ...o });
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const frame = (res: ServerResponse, event: string, data: object, id?: number) =>
  res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

function follow<T>(feed: EventFeed<T>): { events: FeedEvent<T>[]; links: FeedLink[] } {
  feeds.push(feed as EventFeed);
  const got = { events: [] as FeedEvent<T>[], links: [] as FeedLink[] };
  feed.subscribe((e) => got.events.push(e));
  feed.onLink((l) => got.links.push(l));
  return got;
}

const until = async (cond: () => boolean, what: string) => {
  for (const deadline = Date.now() + 5_000; !cond(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
};

it('the sessions feed resumes after the position `ready` named when it drops before any session moved, then after the last id: no gap', async () => {
  answer = (n, res) => {
    sse(res);
    if (n === 1) return (frame(res, 'ready', { position: 5 }), res.end());
    if (n === 2) return (frame(res, 'ready', { position: 5 }), frame(res, 'session', { sessionId: 's1', position: 7 }, 7), setTimeout(() => res.destroy(), 30));
    frame(res, 'ready', { position: 7 });
    frame(res, 'erased', { sessionId: 's1', erasedAt: 'now', position: 8 }, 8);
  };
  const got = follow(new Sessions(http(), {}).feed({ baseDelayMs: 10 }));
  await until(() => got.events.some((e) => e.event === 'erased'), 'the erasure');
  expect(seen.map((s) => s.url.pathname)).toEqual(['/v1/sessions/stream', '/v1/sessions/stream', '/v1/sessions/stream']);
  expect(seen.map((s) => s.url.searchParams.get('after'))).toEqual([null, '5', '7']);
  expect(got.links).toEqual(['live', 'reconnecting', 'live', 'reconnecting', 'live']);
  expect(got.events.filter((e) => e.event !== 'ready').map((e) => e.id)).toEqual([7, 8]);
});

it('a drop in the middle of the snapshot starts it over; once `ready` has come the feed resumes after its position', async () => {
  answer = (n, res) => {
    sse(res);
    // Pending approvals in the order they were asked for: their ids (positions) are not in order.
    frame(res, 'approval', { approvalId: 'a9' }, 9);
    if (n === 1) return void setTimeout(() => res.destroy(), 30);
    frame(res, 'approval', { approvalId: 'a4' }, 4);
    if (n === 2) return (frame(res, 'ready', { position: 12 }), res.end());
    frame(res, 'ready', { position: 12 });
  };
  const feed = follow(new EventFeed(http(), '/v1/approvals/stream', { baseDelayMs: 10 }));
  await until(() => seen.length === 3 && feed.events.filter((e) => e.event === 'ready').length === 2, 'the second ready');
  expect(seen.map((s) => s.url.searchParams.get('after'))).toEqual([null, null, '12']);
});

it('a feed the hub ends for a revoked key closes for good at once, with UNAUTHENTICATED', async () => {
  answer = (_n, res) => {
    sse(res);
    frame(res, 'ready', { position: 1 });
    frame(res, 'error', { code: 'UNAUTHENTICATED', detail: 'the API key of this stream was revoked' });
    res.end();
  };
  const feed = new EventFeed(http(), '/v1/approvals/stream', { baseDelayMs: 10 });
  const got = follow(feed);
  await feed.done;
  expect(feed.closeError).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, message: 'the API key of this stream was revoked' });
  expect(got.links).toEqual(['live', 'closed']);
  expect(seen).toHaveLength(1);
});

it('a refused connection (401) closes the feed without trying again; a broken one is tried again', async () => {
  answer = (n, res) => {
    if (n === 1) return void res.socket?.destroy();
    res.writeHead(401, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ status: 401, code: 'UNAUTHENTICATED', detail: 'missing, invalid or revoked API key' }));
  };
  const feed = new EventFeed(http(), '/v1/approvals/stream', { baseDelayMs: 10 });
  const got = follow(feed);
  await feed.done;
  expect(seen).toHaveLength(2);
  expect(feed.closeError).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  expect(got.links).toEqual(['reconnecting', 'closed']);
});

it('without an API key sends no Authorization, and the headers given with every request (a browser signed in with a cookie and its CSRF token)', async () => {
  answer = (_n, res) => (sse(res), frame(res, 'ready', { position: 0 }));
  const got = follow(new EventFeed(http({ headers: { 'x-hub-csrf': 't0k' } }), '/v1/approvals/stream'));
  await until(() => got.links.includes('live'), 'live');
  expect(seen[0]?.headers.authorization).toBeUndefined();
  expect(seen[0]?.headers['x-hub-csrf']).toBe('t0k');
  expect(seen[0]?.headers.accept).toBe('text/event-stream');
});
