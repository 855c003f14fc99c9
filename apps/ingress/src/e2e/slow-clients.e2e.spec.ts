import { connect, type Socket } from 'node:net';
import { HubStack } from '@hub/testing';

// Issue 11, defect 9: a client trickling its headers or body held a connection for 316 s, before
// any authentication (Node's default requestTimeout is 300 s). Ingress now cuts it off after
// HUB_HTTP_HEADERS_TIMEOUT_MS / HUB_HTTP_REQUEST_TIMEOUT_MS (set short here) with a 408.

jest.setTimeout(90_000);

let stack: HubStack;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'slow', workers: 0, ingressEnv: { HUB_HTTP_HEADERS_TIMEOUT_MS: '1000', HUB_HTTP_REQUEST_TIMEOUT_MS: '2000' } });
});
afterAll(() => stack?.stop());

/** Writes `head` and never finishes; resolves with what came back and how long the socket lived. */
function trickle(head: string): Promise<{ reply: string; ms: number }> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let reply = '';
    const s: Socket = connect(Number(port), hostname, () => s.write(head));
    // A byte now and then, as a slowloris client does, so only the deadline can end it.
    const drip = setInterval(() => s.writable && s.write(head.endsWith('\r\n\r\n') ? 'x' : 'X-Slow: 1\r\n'), 300);
    s.on('data', (d) => (reply += d.toString()));
    s.on('error', () => undefined); // a reset after the 408 is the server ending it: what we want
    s.on('close', () => {
      clearInterval(drip);
      resolve({ reply, ms: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(drip);
      s.destroy();
      reject(new Error(`still open after 20 s; got ${JSON.stringify(reply)}`));
    }, 20_000);
  });
}

it('cuts off a client that never finishes its headers, with 408', async () => {
  const r = await trickle(`POST /v1/openharness HTTP/1.1\r\nHost: hub\r\n`);
  expect(r.reply).toMatch(/^HTTP\/1\.1 408/);
  expect(r.ms).toBeLessThan(8_000);
});

it('cuts off a client that never finishes its body, with 408', async () => {
  const r = await trickle(`POST /v1/openharness HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"`);
  expect(r.reply).toMatch(/^HTTP\/1\.1 408/);
  expect(r.ms).toBeLessThan(10_000);
});

it('still serves ordinary requests', async () => {
  expect((await fetch(`${stack.url}/health`)).status).toBe(200);
});
