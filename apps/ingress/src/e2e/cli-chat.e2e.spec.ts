import { HubProcess, HubStack, hubJson } from '@hub/testing';

// `bin/hub chat` as a script runs it (stdin is not a terminal): it must never wait forever on a
// question nobody can answer, must say why a prompt does not start, and must say why a turn failed.

jest.setTimeout(120_000);

let stack: HubStack;
let apiKey: string;
let tenantId: string;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'clichat', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1' } });
  ({ apiKey, tenantId } = await stack.createTenant('chat'));
});
afterAll(() => stack?.stop());

const chat = (session: string, ...args: string[]) => {
  const p = new HubProcess(['chat', '--session', session, ...args], { ...stack.baseEnv(), HUB_URL: stack.url, HUB_API_KEY: apiKey });
  p.child.stdin?.end();
  return p;
};

it('without a terminal, a pending approval ends the chat with exit 5, its id and how to answer it', async () => {
  const p = chat('approve-me', 'write "hi" to a.txt');
  expect(await p.exited).toBe(5);
  const id = /approval pending: (\S+):/.exec(p.stderr)?.[1];
  expect(id).toBeTruthy();
  expect(p.stderr).toContain(`/v1/sessions/approve-me/approvals/${id}`);
  // The reason names the tool once, not twice.
  expect(p.stderr).not.toMatch(/write_file \(medium risk\): write_file/);
});

it('a prompt queued behind a turn that waits for approval says so, then runs once it is answered', async () => {
  const first = chat('queued', 'write "hi" to b.txt');
  expect(await first.exited).toBe(5);
  const approvalId = /approval pending: (\S+):/.exec(first.stderr)?.[1] as string;
  const second = chat('queued', 'read notes.txt');
  const deadline = Date.now() + 20_000;
  while (!second.stderr.includes('queued:') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(second.stderr).toContain(`waits for approval ${approvalId}`);
  const answer = await hubJson('POST', `${stack.url}/v1/sessions/queued/approvals/${approvalId}`, apiKey, { decision: 'approved' });
  expect(answer.status).toBeLessThan(300);
  expect(await second.exited).toBe(0);
  expect(second.stdout.length).toBeGreaterThan(0);
});

it('a failed turn prints its error code and message, and exits 1', async () => {
  const p = chat('fails', 'fail with auth');
  expect(await p.exited).toBe(1);
  expect(p.stderr).toMatch(/turn failed: \S+/);
});

// Issue 30: --approve / --deny and the exit codes were untested.
it.each([
  ['--approve', 'approved', 'complete'],
  ['--deny', 'denied', 'denied'],
] as const)('%s answers the approval of its prompt without asking, and the turn ends: exit 0', async (flag, decision, toolStatus) => {
  const session = `answer-${decision}`;
  const p = chat(session, flag, 'write "hi" to answered.txt');
  expect(await p.exited).toBe(0);
  const events = await stack.events(tenantId, session);
  expect(events.filter((e) => e.type === 'ApprovalResolved').map((e) => e.data.decision)).toEqual([decision]);
  expect(events.filter((e) => e.type === 'ToolCallCompleted').map((e) => e.data.status)).toEqual([toolStatus]);
  expect(events.at(-1)?.type).toBe('TurnCompleted');
});

it('a hub it cannot reach: exit 3, saying where it looked', async () => {
  const p = new HubProcess(['chat', '--session', 'nowhere', 'hello'], { ...stack.baseEnv(), HUB_URL: 'http://127.0.0.1:9', HUB_API_KEY: apiKey });
  p.child.stdin?.end();
  expect(await p.exited).toBe(3);
  expect(p.stderr).toContain('cannot reach the hub at http://127.0.0.1:9');
});

it('a key the hub refuses: exit 3, with the HTTP status', async () => {
  const p = new HubProcess(['chat', '--session', 'refused', 'hello'], { ...stack.baseEnv(), HUB_URL: stack.url, HUB_API_KEY: 'hub_notakey' });
  p.child.stdin?.end();
  expect(await p.exited).toBe(3);
  expect(p.stderr).toContain('hub refused the connection: HTTP 401');
});
