import { connect } from 'node:net';
import WebSocket from 'ws';
import { HubStack } from '@hub/testing';

// Issue 11, defect 1: input that reaches one of our event listeners before authentication must
// never take the process down (it drops every socket of every tenant on that ingress).

jest.setTimeout(60_000);

let stack: HubStack;
let apiKey: string;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'survives', workers: 0, ingressEnv: { LOG_LEVEL: 'info', HUB_MAX_FRAME_BYTES: '1024' } });
  apiKey = (await stack.createTenant('survivor')).apiKey;
});
afterAll(() => stack?.stop());

/** Sends a raw HTTP upgrade request and returns the status line of the answer ('' if none). */
function rawUpgrade(path: string, key?: string): Promise<string> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    const done = () => resolve(got.split('\r\n')[0] ?? '');
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on('data', (d) => {
      got += d.toString();
      socket.end();
    });
    socket.on('close', done);
    socket.on('error', done);
    socket.write(
      [
        `GET ${path} HTTP/1.1`,
        `Host: ${hostname}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        ...(key ? [`Authorization: Bearer ${key}`] : []),
        '',
        '',
      ].join('\r\n'),
    );
  });
}

const MALFORMED = ['/v1/openenv/%ZZ/ws', '/v1/openenv/%ZZ/harness', '/v1/openenv/%E0%A4%A/ws', '/v1/openenv/a%/harness'];

it.each(MALFORMED)('an upgrade to %s, with and without a key, is answered and ingress keeps serving', async (path) => {
  const anonymous = await rawUpgrade(path);
  expect(anonymous).toMatch(/^HTTP\/1\.1 (400|401)/);
  const authed = await rawUpgrade(path, apiKey);
  expect(authed).toMatch(/^HTTP\/1\.1 (101|400|404)/);
  expect(stack.ingress.alive).toBe(true);
  const health = await fetch(`${stack.url}/health`);
  expect(health.status).toBe(200);
});

it('an oversized frame is one info line of JSON, not an ERROR with a stack (issue 17)', async () => {
  const before = stack.ingress.stderr.length;
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/transport?session=big`, { headers: { Authorization: `Bearer ${apiKey}` } });
  await new Promise((r) => ws.once('open', r));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  ws.send('x'.repeat(4096));
  expect(await closed).toBe(1009);
  await new Promise((r) => setTimeout(r, 300));
  const lines = stack.ingress.stderr.slice(before).split('\n').filter(Boolean);
  const faults = lines.filter((l) => l.includes('client socket fault'));
  expect(faults).toHaveLength(1);
  expect(JSON.parse(faults[0])).toMatchObject({ level: 30, msg: expect.stringContaining('WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') });
  // Every line ingress wrote is JSON (no coloured Nest text, no bare stack lines).
  for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
});

it("expected client faults (bad JSON, an unknown command, a bad key, an unknown route) are the client's: no error line, each line JSON", async () => {
  const before = stack.ingress.stderr.length;
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/transport?session=faulty`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(d.toString()));
  await new Promise((r) => ws.once('open', r));
  ws.send('{not json');
  ws.send(JSON.stringify({ type: 'commands', commands: [{ type: 'explode' }] }));
  const deadline = Date.now() + 5_000;
  while (frames.filter((f) => f.includes('"error"')).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  ws.close();
  expect(frames.filter((f) => f.includes('"error"'))).toHaveLength(2);
  expect((await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: 'Bearer hub_nope' } })).status).toBe(401);
  expect((await fetch(`${stack.url}/v1/no-such-route`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(404);
  await new Promise((r) => setTimeout(r, 300));
  const lines = stack.ingress.stderr.slice(before).split('\n').filter(Boolean);
  const parsed = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
  // The access log saw them (info), nothing was logged as an error.
  expect(parsed.filter((l) => l.msg === 'http request').length).toBeGreaterThanOrEqual(2);
  expect(parsed.filter((l) => l.level >= 50)).toEqual([]);
});
