import { HubStack, TransportTestClient } from '@hub/testing';

// Issue 17: `hub status` tells an operator what the deployment is doing. Over a real stack: a turn
// waiting for an approval is counted, with the pending approval, and is never stuck; a running
// turn is stuck only past --stuck-after, and at once when its worker died and its lock expired;
// with no worker left the command says so and exits 1. A new worker then finishes the turn.

jest.setTimeout(180_000);

interface Report {
  workers: Array<{ queue: string; workers: number }>;
  turns: { running: number; awaitingApproval: number; stuck: Array<{ sessionId: string; state: string; held: boolean }> };
  approvals: { pending: number; oldestRequestedAt: string | null };
  projections: Array<{ name: string; lagEvents: number }>;
}

let stack: HubStack;
let tenant: { apiKey: string };

beforeAll(async () => {
  // A 2 s lock, so a dead worker's turn is orphaned quickly; 100 ms per word, so a turn runs long
  // enough to be looked at.
  stack = await HubStack.start({ label: 'status', workerEnv: { HUB_WORKER_LOCK_MS: '2000', HUB_OFFLINE_DELAY_MS: '100' } });
  tenant = await stack.createTenant('status');
});
afterAll(() => stack?.stop());

async function status(...args: string[]): Promise<{ code: number | null; report: Report }> {
  const res = await stack.cli(['status', '--json', ...args]);
  if (!res.stdout.trim()) throw new Error(`hub status printed nothing (exit ${res.code}): ${res.stderr.slice(0, 500)}`);
  return { code: res.code, report: JSON.parse(res.stdout) as Report };
}

async function open(session: string, prompt: string): Promise<TransportTestClient> {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt }]);
  return c;
}

it('counts waiting and running turns, calls one stuck past the threshold or when its worker died, and says when no worker is left', async () => {
  const asking = await open('asking', 'write "x" to s.txt');
  await asking.waitFor('the approval', (x) => x.lastAssistant()?.toolCalls?.some((t) => t.approval?.status === 'pending') === true);
  const streaming = await open('streaming', 'long answer 150');
  await streaming.waitFor('text', (x) => (x.lastAssistant()?.content.length ?? 0) > 0);

  const [calm, strict] = await Promise.all([status('--stuck-after', '3600'), status('--stuck-after', '0.5')]);
  expect(calm.code).toBe(0);
  expect(calm.report.turns).toEqual({ running: 2, awaitingApproval: 1, stuck: [] });
  expect(calm.report.approvals).toEqual({ pending: 1, oldestRequestedAt: expect.any(String) });
  expect(calm.report.workers.find((w) => w.queue === 'turns')?.workers).toBe(1);
  expect(calm.report.projections.map((p) => p.name).sort()).toEqual(['approvals', 'sessions', 'turns', 'usage']);
  // Past the threshold the running turn is stuck; the one a person must answer never is.
  expect(strict.code).toBe(1);
  expect(strict.report.turns.stuck).toEqual([expect.objectContaining({ sessionId: 'streaming', state: 'running', held: true })]);

  await stack.workers[0]?.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 3000));
  const dead = await status('--stuck-after', '3600');
  expect(dead.code).toBe(1);
  expect(dead.report.turns.stuck).toEqual([expect.objectContaining({ sessionId: 'streaming', state: 'orphaned', held: false })]);
  expect(dead.report.workers.every((w) => w.workers === 0)).toBe(true);
  const human = await stack.cli(['status']);
  expect(human.code).toBe(1);
  expect(human.stdout).toMatch(/turns running: 2 \(1 awaiting approval\), stuck: 1/);
  expect(human.stdout).toContain('stuck streaming turn');
  expect(human.stdout).toContain("its worker's lock expired");
  expect(human.stdout).toContain('no worker is connected');

  // A new worker takes the orphaned turn over and finishes it; the approval is answered.
  await stack.addWorker();
  await streaming.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete', 120_000);
  const approvalId = asking.lastAssistant()?.toolCalls?.find((t) => t.approval?.status === 'pending')?.approval?.id as string;
  asking.send([{ type: 'approve', approvalId }]);
  await asking.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await Promise.all([asking.close(), streaming.close()]);
  // The read models follow the log within a projection lag.
  let after = await status();
  for (let i = 0; i < 20 && after.report.turns.running > 0; i++) after = await new Promise((r) => setTimeout(r, 250)).then(() => status());
  expect(after.code).toBe(0);
  expect(after.report.turns).toEqual({ running: 0, awaitingApproval: 0, stuck: [] });
});
