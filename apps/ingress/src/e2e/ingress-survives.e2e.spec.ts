import { connect } from 'node:net';
import { HubStack } from '@hub/testing';

// Issue 11, defect 1: input that reaches one of our event listeners before authentication must
// never take the process down (it drops every socket of every tenant on that ingress).

jest.setTimeout(60_000);

let stack: HubStack;
let apiKey: string;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'survives', workers: 0 });
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
