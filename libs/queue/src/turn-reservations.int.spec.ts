import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { TurnReservations } from './turn-reservations';

// The concurrentTurns limit's places for turns admitted but not appended yet (issue 16): without
// them, submits checked at the same moment all saw the same count and all passed.

const q = uniqueQueuePrefix('turn_reservations');
const connections: Redis[] = [];
const ingress = (reserveMs = 5_000) => {
  const redis = new Redis(TEST_REDIS_URL);
  connections.push(redis);
  return new TurnReservations(redis, q.prefix, reserveMs);
};
afterAll(async () => {
  await Promise.all(connections.map((r) => r.quit()));
  await q.cleanup();
});

it('admits up to the limit across ingresses, counting the log and the reserved places once each', async () => {
  const [a, b] = [ingress(), ingress()];
  const t = randomUUID();
  expect(await a.admit(t, 's1', 2, [])).toEqual({ admitted: true });
  // s1 is reserved here and, by now, in the log too: one session, counted once.
  expect(await b.admit(t, 's2', 2, ['s1'])).toEqual({ admitted: true });
  expect(await b.admit(t, 's3', 2, ['s1'])).toEqual({ admitted: false, running: 2 });
  // A session already running or reserved only queues behind its turn: it does not count itself.
  expect(await a.admit(t, 's2', 2, ['s1', 's2'])).toEqual({ admitted: true });
  // Another tenant is not touched.
  expect(await a.admit(randomUUID(), 's3', 2, [])).toEqual({ admitted: true });
  // Decided: the place goes back; what the log says running still counts.
  await a.release(t, 's2');
  expect(await b.admit(t, 's3', 2, ['s1'])).toEqual({ admitted: true });
  expect(await b.admit(t, 's4', 2, ['s1'])).toEqual({ admitted: false, running: 2 });
});

it('a burst of submits at once: exactly the limit is admitted', async () => {
  const ingresses = [ingress(), ingress(), ingress()];
  const t = randomUUID();
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ingresses[i % 3].admit(t, `s${i}`, 3, [])));
  expect(answers.filter((x) => x.admitted)).toHaveLength(3);
});

it('the place of a turn whose ingress died runs out by itself', async () => {
  const dying = ingress(300);
  const t = randomUUID();
  expect(await dying.admit(t, 's1', 1, [])).toEqual({ admitted: true });
  expect(await ingress().admit(t, 's2', 1, [])).toEqual({ admitted: false, running: 1 });
  await new Promise((r) => setTimeout(r, 450));
  expect(await ingress().admit(t, 's2', 1, [])).toEqual({ admitted: true });
});
