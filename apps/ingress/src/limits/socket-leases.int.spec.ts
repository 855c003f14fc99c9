import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { SocketLeases } from './socket-leases';

// Open sockets per tenant (issue 16), counted across every ingress in Redis as leases: each
// socket holds one, its ingress renews it while the socket is open and gives it back when the
// socket closes. An ingress that dies (kill -9) renews nothing, so its sockets stop counting
// once their leases run out, instead of holding the tenant's count up forever.

const LEASE_MS = 600;
const q = uniqueQueuePrefix('socket_leases');
const opened: SocketLeases[] = [];
const ingress = () => {
  const l = new SocketLeases({ redisUrl: TEST_REDIS_URL, prefix: q.prefix, leaseMs: LEASE_MS });
  opened.push(l);
  return l;
};
afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await q.cleanup();
});

/** A socket as `hold` sees one: something that says when it closed. */
const socket = () => new EventEmitter();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('counts one tenant across ingresses, refuses over the limit, and not another tenant', async () => {
  const [a, b] = [ingress(), ingress()];
  const t = randomUUID();
  const first = await a.acquire(t, 2);
  const second = await b.acquire(t, 2);
  expect([first.admitted, second.admitted]).toEqual([true, true]);
  expect(await b.acquire(t, 2)).toEqual({ admitted: false, open: 2 });
  expect(await a.open(t)).toBe(2);
  expect((await a.acquire(randomUUID(), 2)).admitted).toBe(true);
  // Without a limit a socket is still counted (a limit set later sees the sockets already open).
  expect((await a.acquire(t, null)).admitted).toBe(true);
  expect(await b.open(t)).toBe(3);
});

it('a socket held open keeps its lease past the lease time; its close gives it back at once', async () => {
  const [a, b] = [ingress(), ingress()];
  const t = randomUUID();
  const s = socket();
  const got = await a.acquire(t, 1);
  if (!got.admitted) throw new Error('not admitted');
  a.hold(got.lease, s);
  await sleep(LEASE_MS * 3);
  expect(await b.acquire(t, 1)).toEqual({ admitted: false, open: 1 });
  s.emit('close');
  await sleep(50);
  expect(await b.open(t)).toBe(0);
  expect((await b.acquire(t, 1)).admitted).toBe(true);
});

it('the sockets of an ingress that died stop counting once their leases run out', async () => {
  const [dying, other] = [ingress(), ingress()];
  const t = randomUUID();
  const got = await dying.acquire(t, 1);
  if (!got.admitted) throw new Error('not admitted');
  dying.hold(got.lease, socket());
  dying.crash(); // no renewal, no release: what kill -9 leaves behind
  expect((await other.acquire(t, 1)).admitted).toBe(false);
  await sleep(LEASE_MS + 200);
  expect(await other.open(t)).toBe(0);
  expect((await other.acquire(t, 1)).admitted).toBe(true);
});

it('an ingress that stops gives every lease it holds back', async () => {
  const [stopping, other] = [ingress(), ingress()];
  const t = randomUUID();
  for (let i = 0; i < 3; i++) {
    const got = await stopping.acquire(t, 3);
    if (got.admitted) stopping.hold(got.lease, socket());
  }
  expect(await other.open(t)).toBe(3);
  await stopping.close();
  expect(await other.open(t)).toBe(0);
});

it('a lease taken but never held (the upgrade failed after the check) runs out by itself', async () => {
  const a = ingress();
  const t = randomUUID();
  expect((await a.acquire(t, 1)).admitted).toBe(true);
  await sleep(LEASE_MS + 200);
  expect((await a.acquire(t, 1)).admitted).toBe(true);
});
