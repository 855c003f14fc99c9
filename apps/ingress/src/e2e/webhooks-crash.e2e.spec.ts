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

  const bodies = receiver.at('/all').map((r) => WebhookReceiver.verify(secret, r));
  // None invented: every delivery is an event of the log, with its type.
  for (const b of bodies) expect([b.data.position, b.type]).toEqual([b.data.position, expected.get(b.data.position as number)]);
  // At least once: some were cut off and delivered again (same webhook-id), none twice otherwise.
  const ids = new Map<string, number>();
  for (const r of receiver.at('/all')) ids.set(String(r.headers['webhook-id']), (ids.get(String(r.headers['webhook-id'])) ?? 0) + 1);
  expect(ids.size).toBe(expected.size);
  process.stderr.write(`webhook crash: ${cutOff} requests before the kill, ${receiver.at('/all').length} in all for ${expected.size} events\n`);
});
