import type { HubEvent, Recorded } from '@hub/domain';
import { HubStack, TransportTestClient } from '@hub/testing';

// Two worker processes share the queues. A worker killed with SIGKILL mid-stream leaves its
// job locked; BullMQ's stalled check hands it to the other worker, which continues the turn
// from the log (issue "First full turn", durable turns).

jest.setTimeout(180_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({
    label: 'durable',
    workers: 2,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '15', HUB_WORKER_LOCK_MS: '2000' },
  });
  tenant = await stack.createTenant('durable');
});
afterAll(() => stack?.stop());

const PROMPT = 'long answer 400';

async function finalText(session: string, onStreaming?: (c: TransportTestClient) => Promise<void>): Promise<{ client: TransportTestClient; text: string }> {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: PROMPT }]);
  if (onStreaming) await onStreaming(c);
  await c.waitFor('the turn to end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete', 120_000);
  return { client: c, text: c.lastAssistant()?.content ?? '' };
}

function workerOfTurn(events: Recorded<HubEvent>[]): string | undefined {
  const delta = [...events].reverse().find((e) => e.type === 'TextDelta');
  return delta?.metadata.actor?.id;
}

it('a turn whose worker is killed -9 mid-stream completes on the other, with the same text', async () => {
  const { client: ref, text: expected } = await finalText('s-reference');
  await ref.close();
  expect(expected.split(' ').length).toBeGreaterThan(300);

  let killedPid: number | undefined;
  const { client, text } = await finalText('s-killed', async (c) => {
    await c.waitFor('streaming to be under way', (x) => (x.lastAssistant()?.content.length ?? 0) > 400);
    const holder = workerOfTurn(await stack.events(tenant.tenantId, 's-killed'));
    const pid = Number(holder?.split('-')[1]);
    const victim = stack.workers.find((w) => w.child.pid === pid);
    expect(victim).toBeDefined();
    killedPid = pid;
    await victim?.kill('SIGKILL');
  });
  expect(killedPid).toBeDefined();
  expect(text).toBe(expected);
  const events = await stack.events(tenant.tenantId, 's-killed');
  const completed = events.find((e) => e.type === 'TurnCompleted');
  expect(completed?.data).toEqual(expect.objectContaining({ text: expected }));
  // Deltas tile the text exactly: nothing duplicated, nothing lost.
  const deltas = events.filter((e): e is Recorded<Extract<HubEvent, { type: 'TextDelta' }>> => e.type === 'TextDelta');
  expect(deltas.map((d) => d.data.text).join('')).toBe(expected);
  let offset = 0;
  for (const d of deltas) {
    expect(d.data.offset).toBe(offset);
    offset += d.data.text.length;
  }
  // Both workers wrote part of this turn, and the model call was recorded once.
  const writers = new Set(deltas.map((d) => d.metadata.actor?.id));
  expect(writers.size).toBe(2);
  expect(events.filter((e) => e.type === 'ModelCallCompleted')).toHaveLength(1);
  await client.close();
});

it('turns of one session never overlap, even with two workers and a burst of submits', async () => {
  await stack.addWorker(); // replace the worker killed above
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 's-burst' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([1, 2, 3, 4, 5].map((i) => ({ type: 'submit', prompt: `calculate ${i} * 7` })));
  await c.waitFor(
    'five answers',
    (x) => (x.state?.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length ?? 0) === 5 && x.state?.status === 'idle',
    60_000,
  );
  const events = await stack.events(tenant.tenantId, 's-burst');
  let active: string | null = null;
  for (const e of events) {
    if (e.type === 'TurnStarted') {
      expect(active).toBeNull();
      active = e.data.turnId;
    } else if ('turnId' in e.data && e.type !== 'TurnRequested') {
      expect(e.data.turnId).toBe(active);
    }
    if (e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') active = null;
  }
  const answers = c.state?.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
  expect(answers).toEqual([7, 14, 21, 28, 35].map((n) => expect.stringContaining(`The result is ${n}`)));
  await c.close();
});

it('cancel stops a running turn promptly and records TurnCancelled', async () => {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 's-cancel' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'long answer 2000' }]);
  await c.waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 50);
  const t0 = Date.now();
  c.send([{ type: 'cancel' }]);
  await c.waitFor('idle', (x) => x.state?.status === 'idle');
  expect(Date.now() - t0).toBeLessThan(2000);
  expect(c.lastAssistant()?.stopReason).toBe('cancelled');
  const lengthAtCancel = c.lastAssistant()?.content.length ?? 0;
  await new Promise((r) => setTimeout(r, 500));
  const events = await stack.events(tenant.tenantId, 's-cancel');
  expect(events.filter((e) => e.type === 'TurnCancelled')).toHaveLength(1);
  expect(events.some((e) => e.type === 'TurnCompleted')).toBe(false);
  // nothing streams after the cancel
  const lastIdx = events.findIndex((e) => e.type === 'TurnCancelled');
  expect(events.slice(lastIdx + 1).filter((e) => e.type === 'TextDelta')).toHaveLength(0);
  expect(c.lastAssistant()?.content.length).toBe(lengthAtCancel);
  await c.close();
});
