import { HubStack, TransportTestClient, WebhookReceiver } from '@hub/testing';

// Issue 28, "at least once, from the log": the worker delivering is killed with SIGKILL while
// its attempts are in flight (the receiver holds each answer). Afterwards every event of the
// log that the endpoint subscribed to is delivered at least once, and nothing else is: no
// position the log does not have, no type the endpoint did not ask for.

jest.setTimeout(180_000);

const ENV = {
  HUB_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  HUB_WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s',
  HUB_WEBHOOK_POLL_MS: '50',
  HUB_WEBHOOK_TIMEOUT_MS: '3000',
  HUB_OFFLINE_DELAY_MS: '1',
};
let stack: HubStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  stack = await HubStack.start({ label: 'webhookcrash', workers: 1, ingressEnv: ENV, workerEnv: ENV });
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function until<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('kill -9 of the delivering worker with deliveries in flight: every event delivered at least once, none invented', async () => {
  const t = await stack.createTenant('crash');
  const created = await fetch(`${stack.url}/v1/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url('/all'), events: ['session.opened', 'turn.completed'] }),
  });
  const { secret } = (await created.json()) as { secret: string };
  // Slow answers: attempts stay in flight long enough to be cut off.
  receiver.answer('/all', () => ({ status: 200, delayMs: 1500 }));

  const sessions = Array.from({ length: 8 }, (_, i) => `crash-${i}`);
  await Promise.all(
    sessions.map(async (session) => {
      const c = await TransportTestClient.connect(stack.url, t.apiKey, { session });
      await c.waitFor('snapshot', (x) => x.state !== null);
      c.send([{ type: 'submit', prompt: 'hello' }]);
      await c.waitFor('the answer', (x) => x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= 2);
      await c.close();
    }),
  );
  await until('attempts in flight', () => receiver.at('/all').length >= 2);
  await stack.workers[0].kill('SIGKILL');
  // Requests the receiver holds (it answers 1.5 s after each): their answers never reach the hub.
  const killedAt = Date.now();
  const inFlight = new Set(
    receiver
      .at('/all')
      .filter((r) => r.at > killedAt - 1500)
      .map((r) => String(r.headers['webhook-id'])),
  );
  expect(inFlight.size).toBeGreaterThan(0);
  const cutOff = receiver.at('/all').length;
  await stack.addWorker();

  // What the log holds, read behind the hub's back: every event the endpoint wanted.
  const wanted = await stack.query<{ type: string; global_position: string }>(
    `SELECT type, global_position::text FROM events WHERE tenant_id = $1 AND type IN ('SessionOpened', 'TurnCompleted') ORDER BY global_position`,
    [t.tenantId],
  );
  expect(wanted).toHaveLength(sessions.length * 2);
  const expected = new Map(wanted.map((e) => [Number(e.global_position), e.type === 'SessionOpened' ? 'session.opened' : 'turn.completed']));
  const delivered = () => new Set(receiver.at('/all').map((r) => (WebhookReceiver.verify(secret, r).data as { position: number }).position));
  await until('every event delivered', () => [...expected.keys()].every((p) => delivered().has(p)), 90_000);
  // The hub knows it too: each message succeeded, the cut-off ones on a second attempt, after their lease ended.
  await until(
    'every message succeeded',
    async () => {
      const [row] = await stack.query<{ pending: string }>(
        `SELECT count(*) FILTER (WHERE status <> 'succeeded')::text AS pending FROM webhook_messages WHERE tenant_id = $1`,
        [t.tenantId],
      );
      return row.pending === '0';
    },
    90_000,
  );
  for (const id of inFlight) expect([id, receiver.at('/all').filter((r) => r.headers['webhook-id'] === id).length]).toEqual([id, 2]);

  const bodies = receiver.at('/all').map((r) => WebhookReceiver.verify(secret, r));
  // None invented: every delivery is an event of the log, with its type.
  for (const b of bodies) expect([b.data.position, b.type]).toEqual([b.data.position, expected.get(b.data.position as number)]);
  // One webhook-id per event: a repeat is the same message again, never a second one.
  expect(new Set(receiver.at('/all').map((r) => r.headers['webhook-id'])).size).toBe(expected.size);
  process.stderr.write(`webhook crash: ${cutOff} requests before the kill, ${receiver.at('/all').length} in all for ${expected.size} events\n`);
});
