/**
 * One webhook endpoint that never answers must not delay another's deliveries (issue 28).
 *
 *   node -r @swc-node/register tools/bench/webhook-isolation.ts [--sessions 30] [--timeout-ms 10000]
 *
 * A real stack (ingress + one worker) and a real receiver on loopback with two paths: `/live`
 * answers at once, `/dead` accepts the connection and never answers (each attempt holds until
 * HUB_WEBHOOK_TIMEOUT_MS, then is retried). Both endpoints subscribe to `session.opened` and
 * `turn.completed` of the same tenant, so every event makes a message for each. Phase 1 runs
 * the load with only `/live`; phase 2 adds `/dead`, gives it a backlog of 20 test messages (its
 * attempts hang, HUB_WEBHOOK_ENDPOINT_CONCURRENCY of them at once) and runs the load again. For `/live`, a delivery's
 * latency is from its event's commit (`events.created_at`) to the receiver reading it. Prints
 * p50/p99/max per phase and how much phase 2 added (the claim: well under a second).
 */
import { parseArgs } from 'node:util';
import { HubStack, TransportTestClient, WebhookReceiver } from '@hub/testing';
import { pct } from './lib/percentile';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '30' }, 'timeout-ms': { type: 'string', default: '10000' } } });
const SESSIONS = Number(values.sessions);
const TIMEOUT_MS = values['timeout-ms'] as string;

async function turns(stack: HubStack, apiKey: string, prefix: string): Promise<void> {
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const c = await TransportTestClient.connect(stack.url, apiKey, { session: `${prefix}-${i}` });
      await c.waitFor('snapshot', (x) => x.state !== null);
      c.send([{ type: 'submit', prompt: 'hello' }]);
      await c.waitFor('the answer', (x) => x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= 2, 60_000);
      await c.close();
    }),
  );
}

/** Queues `n` webhook.test messages to an endpoint. */
async function tests(stack: HubStack, apiKey: string, id: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await fetch(`${stack.url}/v1/webhooks/${id}/test`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
}

async function endpoint(stack: HubStack, apiKey: string, url: string): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${stack.url}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['session.opened', 'turn.completed'] }),
  });
  if (res.status !== 201) throw new Error(`endpoint not made: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; secret: string };
}

/** Latencies (ms) of `/live` deliveries of the sessions `prefix-*`, from each event's commit. */
async function latencies(stack: HubStack, receiver: WebhookReceiver, secret: string, prefix: string): Promise<number[]> {
  const expected = SESSIONS * 2;
  const deadline = Date.now() + 120_000;
  const mine = () =>
    receiver
      .at('/live')
      .map((r) => ({ r, body: WebhookReceiver.verify(secret, r) }))
      .filter((x) => String(x.body.data.sessionId).startsWith(`${prefix}-`));
  while (mine().length < expected) {
    if (Date.now() > deadline) throw new Error(`only ${mine().length} of ${expected} deliveries arrived`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const positions = mine().map((x) => Number(x.body.data.position));
  const rows = await stack.query<{ p: string; at: Date }>(
    'SELECT global_position::text AS p, created_at AS at FROM events WHERE global_position = ANY($1::bigint[])',
    [positions],
  );
  const committed = new Map(rows.map((r) => [Number(r.p), r.at.getTime()]));
  return mine().map((x) => x.r.at - (committed.get(Number(x.body.data.position)) as number));
}

const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(0)} ms, p99 ${pct(xs, 99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} deliveries)`;

async function main(): Promise<void> {
  const receiver = await WebhookReceiver.start();
  receiver.answer('/dead', () => 'hang');
  const env = {
    HUB_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    HUB_WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
    HUB_WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
    HUB_OFFLINE_DELAY_MS: '0',
  };
  const stack = await HubStack.start({ label: 'bench_webhooks', workers: 1, ingressEnv: env, workerEnv: env });
  try {
    const t = await stack.createTenant('bench');
    const live = (await endpoint(stack, t.apiKey, receiver.url('/live'))).secret;
    await turns(stack, t.apiKey, 'alone');
    const alone = await latencies(stack, receiver, live, 'alone');
    // The dead endpoint gets a backlog first: its attempts hang, as many as one worker makes to one endpoint at once.
    const dead = await endpoint(stack, t.apiKey, receiver.url('/dead'));
    await tests(stack, t.apiKey, dead.id, 20);
    for (const until = Date.now() + 10_000; receiver.at('/dead').length < 4 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
    await turns(stack, t.apiKey, 'beside');
    const beside = await latencies(stack, receiver, live, 'beside');
    const deadOpen = receiver.at('/dead').length;
    process.stdout.write(`/live alone:              ${fmt(alone)}\n`);
    process.stdout.write(`/live beside a dead one:  ${fmt(beside)}  (/dead held ${deadOpen} requests open, none answered; attempt timeout ${TIMEOUT_MS} ms)\n`);
    process.stdout.write(
      `added by the dead endpoint: p50 ${(pct(beside, 50) - pct(alone, 50)).toFixed(0)} ms, p99 ${(pct(beside, 99) - pct(alone, 99)).toFixed(0)} ms, max ${(Math.max(...beside) - Math.max(...alone)).toFixed(0)} ms\n`,
    );
  } finally {
    await receiver.close();
    await stack.stop().catch((e: unknown) => process.stderr.write(`${String(e)}\n`));
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
