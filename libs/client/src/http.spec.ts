import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HubError, HubUnreachableError } from './errors';
import { HubHttp } from './http';

// The HTTP client against a real HTTP server that answers what the test scripts.

let server: Server;
let seen: { method: string; url: string; at: number; headers: IncomingMessage['headers'] }[];
let answer: (n: number, req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', at: Date.now(), headers: req.headers });
    req.resume();
    req.on('end', () => answer(seen.length, req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterEach(() => new Promise((r) => server.close(r)));

const http = (attempts = 3) =>
  new HubHttp({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', retry: { attempts, baseDelayMs: 10 } });
const problem = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title: 't', status, code, detail: `${code} detail` }));
};

it('a POST refused with 429 and Retry-After is sent again after that long, once', async () => {
  answer = (n, _req, res) => (n === 1 ? problem(res, 429, 'RATE_LIMITED', { 'retry-after': '1' }) : res.end('{"ok":true}'));
  await expect(http().json('POST', '/v1/x', { body: { a: 1 } })).resolves.toEqual({ ok: true });
  expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
  expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  expect(seen[0]?.headers.authorization).toBe('Bearer k');
});

it("an answer the hub meant is thrown at once as a HubError with the hub's code", async () => {
  answer = (_n, _req, res) => problem(res, 409, 'APPROVAL_ALREADY_RESOLVED');
  const e = (await http()
    .json('POST', '/v1/x')
    .catch((x: unknown) => x)) as HubError;
  expect(e).toBeInstanceOf(HubError);
  expect(e).toMatchObject({ code: 'APPROVAL_ALREADY_RESOLVED', status: 409, message: 'APPROVAL_ALREADY_RESOLVED detail' });
  expect(seen).toHaveLength(1);
});

it('a connection that breaks is tried again for a GET, not for a POST without an idempotency key', async () => {
  answer = (n, _req, res) => (n < 3 ? res.socket?.destroy() : res.end('{"n":3}'));
  await expect(http().json('GET', '/v1/y')).resolves.toEqual({ n: 3 });
  seen = [];
  answer = (_n, _req, res) => res.socket?.destroy();
  await expect(http().json('POST', '/v1/y')).rejects.toBeInstanceOf(HubUnreachableError);
  expect(seen).toHaveLength(1);
});

it('a POST with an idempotency key sends it as Idempotency-Key and is tried again after a 502', async () => {
  answer = (n, _req, res) => (n === 1 ? ((res.statusCode = 502), res.end('bad gateway')) : res.end('{}'));
  await http().json('POST', '/v1/z', { idempotencyKey: 'fork-1' });
  expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['fork-1', 'fork-1']);
});
