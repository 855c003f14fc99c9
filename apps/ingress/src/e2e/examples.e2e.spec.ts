import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { HubStack } from '@hub/testing';

// The examples (examples/, issue 30) run as a user runs them, against a real hub: `examples/run`
// on the pinned Node with @harness-hub/client from the workspace.

jest.setTimeout(120_000);

const RUN = join(__dirname, '../../../../examples/run');

let stack: HubStack;
let apiKey: string;
let tenantId: string;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'examples', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1' } });
  ({ apiKey, tenantId } = await stack.createTenant('examples'));
});
afterAll(() => stack?.stop());

/** One example as a child process: its output so far, its exit code once it ends. */
function example(name: string, args: string[], key = apiKey) {
  const child = spawn(RUN, [name, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HUB_URL: stack.url, HUB_API_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '', child, exited: new Promise<number | null>((res) => child.once('exit', (code) => res(code))) };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  return out;
}

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('run-session: a CI step that fails when the turn fails', () => {
  it('prints the answer and exits 0 when the turn completes', async () => {
    const run = example('run-session', ['ci-ok', 'read', 'notes.txt']);
    expect(await run.exited).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(0);
  });

  it('exits 1 with the error when the turn fails', async () => {
    const run = example('run-session', ['ci-fails', 'fail with auth']);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toMatch(/turn \S+ failed: \S+/);
  });

  it('exits 3 when the hub refuses the key', async () => {
    const run = example('run-session', ['ci-refused', 'hello'], 'hub_notakey');
    expect(await run.exited).toBe(3);
  });
});

it('approver-bot answers approvals from the feed by its rule, and stops cleanly on SIGTERM', async () => {
  const bot = example('approver-bot', []);
  await until('"watching approvals"', () => bot.stderr.includes('watching approvals'));
  // Both turns ask; the bot approves the write under reports/ and denies the delete, so both end.
  const write = example('run-session', ['bot', 'write "q3" to reports/q3.txt']);
  expect(await write.exited).toBe(0);
  const del = example('run-session', ['bot', 'delete notes.txt']);
  expect(await del.exited).toBe(0);
  const events = await stack.events(tenantId, 'bot');
  const resolved = events.filter((e) => e.type === 'ApprovalResolved').map((e) => [e.data.decision, e.data.reason]);
  expect(resolved).toEqual([
    ['approved', 'writes under reports/ are allowed'],
    ['denied', 'approver bot: delete_file is not allowed here'],
  ]);
  expect(events.filter((e) => e.type === 'ToolCallCompleted').map((e) => e.data.status)).toEqual(['complete', 'denied']);
  await until('two answer lines', () => bot.stdout.trim().split('\n').length === 2);
  expect(
    bot.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { decision: string }).decision),
  ).toEqual(['approved', 'denied']);
  bot.child.kill('SIGTERM');
  expect(await bot.exited).toBe(0);
});

it('openenv-eval runs an episode per task and prints each reward and the mean', async () => {
  const run = example('openenv-eval', ['eval-arith']);
  expect(await run.exited).toBe(0);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.slice(0, 3).map((l) => [l['task'], l['reward']])).toEqual([
    ['calculate 6 * 7', 1],
    ['what is 40 + 2', 1],
    ['say hello', 0],
  ]);
  expect(new Set(lines.slice(0, 3).map((l) => l['episode'])).size).toBe(3);
  expect(lines[3]).toEqual({ episodes: 3, mean: 0.667 });
});
