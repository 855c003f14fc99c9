import WebSocket from 'ws';
import { HubStack, OpenEnvWs, TransportTestClient, hubJson } from '@hub/testing';

// The WebSocket edge's rules for every protocol (issue 11 defects 4 and 5, issue 17): a revoked
// key stops working on sockets already open, and one process holds a bounded number of sockets.

jest.setTimeout(120_000);

const RECHECK_MS = 1_000;
let stack: HubStack;

beforeAll(async () => {
  stack = await HubStack.start({
    label: 'ws_edge',
    workers: 1,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '2' },
    ingressEnv: { HUB_KEY_RECHECK_MS: String(RECHECK_MS), HUB_WS_MAX_SOCKETS: '4' },
  });
});
afterAll(() => stack?.stop());

/** A bare JSON-RPC client on `WS /v1/acp`: every message it got, and when it closed. */
async function acpClient(apiKey: string) {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/acp`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const got: { id?: number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } }[] = [];
  const closed = new Promise<{ code: number; at: number }>((resolve) => ws.once('close', (code) => resolve({ code, at: Date.now() })));
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  return { ws, got, closed };
}

function closedAt(c: TransportTestClient): Promise<{ code: number; at: number }> {
  return new Promise((resolve) =>
    c.closeCode !== null ? resolve({ code: c.closeCode, at: Date.now() }) : c.ws.once('close', (code) => resolve({ code, at: Date.now() })),
  );
}

describe('a revoked key on open sockets', () => {
  it('closes transport and ACP sockets within a few seconds with an error frame in each protocol; a submit after revocation appends nothing', async () => {
    const t = await stack.createTenant('revoking');
    const transport = await TransportTestClient.connect(stack.url, t.apiKey, { session: 's-revoked' });
    await transport.waitFor('snapshot', (x) => x.state !== null);
    const acp = await acpClient(t.apiKey);
    acp.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    await waitUntil(() => acp.got.some((m) => m.id === 1));
    const transportClosed = closedAt(transport);

    await stack.revokeKey(t.keyPrefix); // bin/hub key revoke, as an operator does it
    const revokedAt = Date.now();
    transport.send([{ type: 'submit', prompt: 'after revocation', id: 'late' }]);

    const [tc, ac] = await Promise.all([transportClosed, acp.closed]);
    expect(tc.code).toBe(4401);
    expect(ac.code).toBe(4401);
    expect(Math.max(tc.at, ac.at) - revokedAt).toBeLessThan(RECHECK_MS * 4 + 2_000);
    expect(transport.errors().at(-1)).toEqual(expect.objectContaining({ code: 'unauthenticated' }));
    expect(acp.got.at(-1)).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32000, data: { code: 'UNAUTHENTICATED' } }) });
    // The submit raced the close: it is refused (or never read), and nothing is appended.
    await new Promise((r) => setTimeout(r, 500));
    expect(await stack.events(t.tenantId, 's-revoked')).toEqual([]);
  });

  it('closes OpenEnv /ws and /harness sockets too, each with its own error shape', async () => {
    const t = await stack.createTenant('openenv-revoking');
    expect((await hubJson('PUT', `${stack.url}/v1/openenv/calc`, t.apiKey, { description: 'arithmetic' })).status).toBe(200);
    const ws = await OpenEnvWs.open(stack.url, '/v1/openenv/calc/ws', t.apiKey);
    const harness = await OpenEnvWs.open(stack.url, '/v1/openenv/calc/harness', t.apiKey);
    await new Promise((r) => setTimeout(r, 300)); // both gateways have taken their socket
    await stack.revokeKey(t.keyPrefix);
    await Promise.all([ws.until('close', () => ws.closeCode !== null, 10_000), harness.until('close', () => harness.closeCode !== null, 10_000)]);
    expect([ws.closeCode, harness.closeCode]).toEqual([4401, 4401]);
    expect(ws.frames.at(-1)).toEqual({ type: 'error', data: { code: 'SESSION_ERROR', message: expect.stringContaining('revoked') } });
    expect(harness.frames.at(-1)).toEqual(
      expect.objectContaining({ type: 'error', data: expect.objectContaining({ code: 'UNAUTHENTICATED', recoverable: false }) }),
    );
  });

  it('leaves the sockets of other keys open', async () => {
    const keep = await stack.createTenant('keeping');
    const drop = await stack.createTenant('dropping');
    const kept = await TransportTestClient.connect(stack.url, keep.apiKey, { session: 's-kept' });
    const dropped = await TransportTestClient.connect(stack.url, drop.apiKey, { session: 's-dropped' });
    await kept.waitFor('snapshot', (x) => x.state !== null);
    await stack.revokeKey(drop.keyPrefix);
    expect((await closedAt(dropped)).code).toBe(4401);
    await new Promise((r) => setTimeout(r, RECHECK_MS * 2));
    expect(kept.closeCode).toBeNull();
    await kept.close();
  });
});

describe('sockets per ingress process (HUB_WS_MAX_SOCKETS=4)', () => {
  it('refuses the upgrade over the bound with 503 problem+json and Retry-After, and admits again once one closes', async () => {
    const t = await stack.createTenant('many');
    const open = await Promise.all([1, 2, 3, 4].map((i) => TransportTestClient.connect(stack.url, t.apiKey, { session: `s-many-${i}` })));
    const refused = await TransportTestClient.connect(stack.url, t.apiKey, { session: 's-many-5' }).then(
      () => null,
      (e: { status: number; body: string; headers: Record<string, string> }) => e,
    );
    expect(refused?.status).toBe(503);
    expect(refused?.headers['content-type']).toBe('application/problem+json');
    expect(refused?.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused?.body ?? '{}')).toEqual(expect.objectContaining({ status: 503, code: 'UNAVAILABLE' }));
    await open[0].close();
    await waitUntil(async () => {
      const again = await TransportTestClient.connect(stack.url, t.apiKey, { session: 's-many-5' }).catch(() => null);
      await again?.close();
      return again !== null;
    });
    await Promise.all(open.slice(1).map((c) => c.close()));
  });
});

async function waitUntil(ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
