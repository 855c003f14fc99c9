import type WebSocket from 'ws';
import { HubStack, hubJson, type HubProcess } from '@hub/testing';
import { upgrade } from './limit-surfaces';

// Issue 16: open sockets per tenant, counted across every ingress (Redis leases, see
// limits/socket-leases.ts). Over the limit every WebSocket protocol's upgrade is refused with
// HTTP 429 problem+json `RATE_LIMITED` and Retry-After, before the socket exists, appending
// nothing. A socket's place comes back when it closes, when its ingress stops, and (within the
// lease time) when its ingress is killed with -9.

jest.setTimeout(120_000);

const LEASE_MS = 3_000;
let stack: HubStack;
let second: { process: HubProcess; url: string };

const opened: WebSocket[] = [];
async function openSocket(url: string, path: string, key: string): Promise<WebSocket> {
  const r = await upgrade(url, path, key);
  if (r.status !== 'open' || !r.ws) throw new Error(`expected ${path} to open, got ${r.status} ${r.body}`);
  opened.push(r.ws);
  return r.ws;
}
const closeSocket = (ws: WebSocket) => new Promise<void>((r) => (ws.readyState === ws.CLOSED ? r() : (ws.once('close', () => r()), ws.close())));

async function tenantWith(openSockets: number, name: string) {
  const t = await stack.createTenant(name);
  expect((await hubJson('PUT', `${stack.url}/v1/admin/limits`, t.apiKey, { openSockets })).status).toBe(200);
  expect((await hubJson('PUT', `${stack.url}/v1/openenv/calc`, t.apiKey, { description: 'arithmetic' })).status).toBe(200);
  return t;
}

/** Tries an upgrade until it opens; how long that took. */
async function openedWithin(url: string, path: string, key: string, ms: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    const r = await upgrade(url, path, key);
    if (r.status === 'open' && r.ws) {
      opened.push(r.ws);
      return Date.now() - t0;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${path} did not open within ${ms} ms`);
}

beforeAll(async () => {
  stack = await HubStack.start({ label: 'limits_sockets', workers: 1, ingressEnv: { HUB_SOCKET_LEASE_MS: String(LEASE_MS) } });
  second = await stack.addIngress();
});
afterAll(async () => {
  await Promise.all(opened.map((ws) => closeSocket(ws).catch(() => undefined)));
  await stack?.stop();
});

it('counts a tenant across ingresses; over its limit every WebSocket protocol is refused at the upgrade with 429 and Retry-After, appending nothing', async () => {
  const t = await tenantWith(2, 'sockets');
  const transport = await openSocket(stack.url, '/v1/transport?session=s-1', t.apiKey);
  await openSocket(second.url, '/v1/acp', t.apiKey);
  const before = await stack.countAllEvents();
  for (const [url, path] of [
    [stack.url, '/v1/transport?session=s-2'],
    [second.url, '/v1/acp'],
    [stack.url, '/v1/openenv/calc/ws'],
    [second.url, '/v1/openenv/calc/harness'],
  ]) {
    const refused = await upgrade(url, path, t.apiKey);
    expect([path, refused.status, refused.headers['content-type'], refused.headers['retry-after']]).toEqual([path, 429, 'application/problem+json', '5']);
    expect(JSON.parse(refused.body)).toEqual(expect.objectContaining({ status: 429, code: 'RATE_LIMITED', detail: expect.stringMatching(/2 WebSockets/) }));
  }
  expect(await stack.countAllEvents()).toBe(before);

  // Another tenant is not touched; a closed socket gives its place back at once.
  const other = await stack.createTenant('other');
  await openSocket(second.url, '/v1/transport?session=free', other.apiKey);
  await closeSocket(transport);
  expect(await openedWithin(second.url, '/v1/openenv/calc/ws', t.apiKey, 2_000)).toBeLessThan(2_000);
});

it("an ingress stopped in order (SIGTERM) gives its sockets' places back as it closes them", async () => {
  const t = await tenantWith(1, 'stopping');
  // Leases of a minute on this one: a place that comes back within seconds was given back, not run out.
  const stopping = await stack.addIngress({ HUB_SOCKET_LEASE_MS: '60000' });
  await openSocket(stopping.url, '/v1/transport?session=s-stop', t.apiKey);
  expect((await upgrade(second.url, '/v1/acp', t.apiKey)).status).toBe(429);
  await stopping.process.kill('SIGTERM');
  expect(await openedWithin(second.url, '/v1/acp', t.apiKey, 5_000)).toBeLessThan(5_000);
});

it('the sockets of an ingress killed with -9 stop counting within the lease time, not never', async () => {
  const t = await tenantWith(1, 'crashing');
  await openSocket(second.url, '/v1/acp', t.apiKey);
  await second.process.kill('SIGKILL');
  // Its socket still counts until its lease runs out (nobody told Redis it is gone)...
  expect((await upgrade(stack.url, '/v1/transport?session=s-after', t.apiKey)).status).toBe(429);
  // ...and then no longer: within one lease time (it was renewed at most a third of one ago).
  const waited = await openedWithin(stack.url, '/v1/transport?session=s-after', t.apiKey, LEASE_MS * 3);
  expect(waited).toBeLessThan(LEASE_MS + 1_500);
});
