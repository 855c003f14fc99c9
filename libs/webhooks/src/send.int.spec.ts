import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { AddressGuard, type Resolve } from './address-guard';
import { deliverWithRetries } from './retry';
import { sendSigned } from './send';
import { newSecret, signedHeaders } from './signing';

// Attempts against real HTTP servers on loopback; the receiving side verifies with the
// `standardwebhooks` package, as our users will.

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
}

type Answer = (seen: Seen, n: number) => { status: number; headers?: Record<string, string> } | 'hang';

async function receiver(answer: Answer): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s = { headers: req.headers, body };
      seen.push(s);
      const a = answer(s, seen.length);
      if (a === 'hang') return;
      res.writeHead(a.status, a.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen, server };
}

const servers: Server[] = [];
afterEach(async () => {
  const open = servers.splice(0);
  await Promise.all(
    open.map((s) => {
      const closed = new Promise((r) => s.close(r));
      s.closeAllConnections();
      return closed;
    }),
  );
});
async function serve(answer: Answer) {
  const r = await receiver(answer);
  servers.push(r.server);
  return r;
}

const loopbackAllowed = new AddressGuard(['127.0.0.0/8']);
const body = JSON.stringify({ type: 'turn.completed', timestamp: '2026-11-26T12:00:00.000Z', data: { sessionId: 's' } });
const plain = (s: Seen) => ({
  'webhook-id': String(s.headers['webhook-id']),
  'webhook-timestamp': String(s.headers['webhook-timestamp']),
  'webhook-signature': String(s.headers['webhook-signature']),
});

describe('the SSRF guard (no range allowed)', () => {
  const guard = new AddressGuard();

  it('refuses loopback, private, link-local and metadata addresses, and allows public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '10.255.255.254',
      '169.254.169.254',
      '192.168.1.1',
      '172.16.0.1',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect([a, guard.check(a).ok]).toEqual([a, false]);
    for (const a of ['8.8.8.8', '2606:4700::1111']) expect([a, guard.check(a).ok]).toEqual([a, true]);
  });

  it('never connects to a refused address, by literal or by a name resolving to it', async () => {
    const r = await serve(() => ({ status: 200 }));
    const port = new URL(r.url).port;
    for (const url of [r.url, `http://localhost:${port}/hook`]) {
      const res = await sendSigned({ url, id: 'msg_x', body, secrets: [newSecret()], timeoutMs: 2000, guard });
      expect([url, res.outcome, res.error]).toEqual([url, 'refused', expect.stringMatching(/loopback/)]);
    }
    expect(r.seen).toHaveLength(0);
  });

  it('refuses a name that resolves to 10.0.0.0/8 or the metadata address (checked on the resolved address)', async () => {
    const names: Record<string, string> = { 'internal.example': '10.1.2.3', 'metadata.example': '169.254.169.254', 'mixed.example': '8.8.8.8,10.0.0.7' };
    const resolve: Resolve = (host, cb) =>
      cb(
        null,
        (names[host] ?? '').split(',').map((address) => ({ address, family: 4 })),
      );
    const g = new AddressGuard([], resolve);
    for (const host of Object.keys(names)) {
      const res = await sendSigned({ url: `http://${host}/hook`, id: 'msg_x', body, secrets: [newSecret()], timeoutMs: 2000, guard: g });
      expect([host, res.outcome, res.error]).toEqual([host, 'refused', expect.stringMatching(/private|linkLocal/)]);
    }
  });
});

describe('one signed attempt', () => {
  it('delivers a body the receiver verifies with standardwebhooks; a tampered body or an old timestamp does not verify', async () => {
    const secret = newSecret();
    const r = await serve(() => ({ status: 204 }));
    const res = await sendSigned({ url: r.url, id: 'msg_1', body, secrets: [secret], timeoutMs: 2000, guard: loopbackAllowed });
    expect(res).toEqual(expect.objectContaining({ outcome: 'succeeded', status: 204 }));
    const got = r.seen[0];
    expect(new Webhook(secret).verify(got.body, plain(got))).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(got.body.replace('turn.completed', 'turn.failed'), plain(got))).toThrow(/No matching signature/);
    const old = signedHeaders('msg_1', new Date(Date.now() - 10 * 60_000), body, [secret]);
    expect(() => new Webhook(secret).verify(body, { ...old })).toThrow(/too old/);
    expect(() => new Webhook(newSecret()).verify(got.body, plain(got))).toThrow(/No matching signature/);
  });

  it('during a rotation signs with both secrets: a receiver holding either verifies', async () => {
    const [current, previous] = [newSecret(), newSecret()];
    const r = await serve(() => ({ status: 200 }));
    await sendSigned({ url: r.url, id: 'msg_2', body, secrets: [current, previous], timeoutMs: 2000, guard: loopbackAllowed });
    expect(String(r.seen[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [current, previous]) expect(new Webhook(s).verify(r.seen[0].body, plain(r.seen[0]))).toEqual(JSON.parse(body));
  });

  it('does not follow a redirect, takes 410 as gone, and fails at the timeout', async () => {
    const target = await serve(() => ({ status: 200 }));
    const redirect = await serve(() => ({ status: 302, headers: { location: target.url } }));
    expect(await sendSigned({ url: redirect.url, id: 'm', body, secrets: [newSecret()], timeoutMs: 2000, guard: loopbackAllowed })).toEqual(
      expect.objectContaining({ outcome: 'redirected', status: 302 }),
    );
    expect(target.seen).toHaveLength(0);
    const gone = await serve(() => ({ status: 410 }));
    expect((await sendSigned({ url: gone.url, id: 'm', body, secrets: [newSecret()], timeoutMs: 2000, guard: loopbackAllowed })).outcome).toBe('gone');
    const hang = await serve(() => 'hang');
    const t0 = Date.now();
    const res = await sendSigned({ url: hang.url, id: 'm', body, secrets: [newSecret()], timeoutMs: 300, guard: loopbackAllowed });
    expect(res.outcome).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});

describe('retries', () => {
  it('500, 500, 200: three attempts, one webhook-id, rising timestamps, each verified', async () => {
    const secret = newSecret();
    const r = await serve((_, n) => ({ status: n < 3 ? 500 : 200 }));
    const outcomes: string[] = [];
    const last = await deliverWithRetries({
      url: r.url,
      id: 'msg_retry',
      body,
      secrets: [secret],
      timeoutMs: 2000,
      guard: loopbackAllowed,
      schedule: [1200, 1200, 1200],
      onAttempt: (_, x) => outcomes.push(x.outcome),
    });
    expect(last.outcome).toBe('succeeded');
    expect(outcomes).toEqual(['failed', 'failed', 'succeeded']);
    expect(new Set(r.seen.map((s) => s.headers['webhook-id']))).toEqual(new Set(['msg_retry']));
    const stamps = r.seen.map((s) => Number(s.headers['webhook-timestamp']));
    expect(stamps[1]).toBeGreaterThan(stamps[0]);
    expect(stamps[2]).toBeGreaterThan(stamps[1]);
    for (const s of r.seen) expect(new Webhook(secret).verify(s.body, plain(s))).toEqual(JSON.parse(body));
  });
});
