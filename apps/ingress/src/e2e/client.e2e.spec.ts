import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { HubStack, REPO_ROOT } from '@hub/testing';
import { HubClient, HubError, type SessionStream, type StreamEvent } from '@harness-hub/client';

// The client against a real hub (ingress and worker processes, Postgres, Redis): a session
// stream that survives an ingress killed with SIGKILL, a 429 whose Retry-After it waits out,
// submits that run once however often they are sent, the approvals feed; and the package as
// `npm pack` makes it, installed into an empty folder, running an example there.

jest.setTimeout(120_000);

const run = promisify(execFile);
const PKG = resolve(REPO_ROOT, 'libs/client');
const WORDS = 200;

let stack: HubStack;
let hub: HubClient;
/** With the deployment's operator key: creates tenants over HTTP. */
let operator: HubClient;
const OPERATOR_KEY = 'operator-key-of-the-client-spec-0123456789';
let apiKey: string;
let tenantId: string;
/** The empty folder the packed package is installed into (in beforeAll, beside the stack's start). */
let installed: Promise<string>;

/** Builds and packs the package, installs the tarball (and `ws`, its optional peer) into an empty folder, and type-checks an example there. */
async function packAndInstall(): Promise<string> {
  await run(process.execPath, [join(PKG, 'scripts/build.mjs')], { cwd: REPO_ROOT });
  const dir = await mkdtemp(join(tmpdir(), 'hub-client-pack-'));
  const { stdout } = await run('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], { cwd: dir });
  const tarball = join(dir, stdout.trim().split('\n').pop() as string);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'empty', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, 'ws@8.23.0'], { cwd: dir });
  await run('cp', [join(PKG, 'examples/run-session.mjs'), join(PKG, 'examples/typed.ts'), dir]);
  // A TypeScript user's view of the declarations: nodenext resolution through package.json "exports".
  const compilerOptions = {
    noEmit: true,
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2023', 'dom'],
    typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
    types: ['node'],
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.ts'] }));
  await run(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir });
  return dir;
}

beforeAll(async () => {
  installed = packAndInstall();
  installed.catch(() => undefined); // awaited by its test
  stack = await HubStack.start({ label: 'client', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '25' }, ingressEnv: { HUB_OPERATOR_KEY: OPERATOR_KEY } });
  // The URL is asked before every connection: a restarted ingress listens on a new port.
  operator = new HubClient({ baseUrl: () => stack.url, apiKey: OPERATOR_KEY });
  ({ apiKey, tenantId } = await operator.admin.createTenant('client'));
  hub = new HubClient({ baseUrl: () => stack.url, apiKey });
});
afterAll(async () => {
  await stack?.stop();
  await installed?.then((dir) => rm(dir, { recursive: true, force: true })).catch(() => undefined);
});

/** Cleanups of the running test (streams left open by a failure would keep reconnecting). */
const afterThis: (() => void)[] = [];
afterEach(() => afterThis.splice(0).forEach((f) => f()));

/** Every frame a stream applied or dropped, in order. */
function record(s: SessionStream): StreamEvent[] {
  const seen: StreamEvent[] = [];
  s.subscribe((e) => seen.push(e));
  return seen;
}

it('a session stream resumes across an ingress killed with SIGKILL: no gap, no duplicate', async () => {
  const s = hub.sessions.open('resume', { maxFailures: 100 });
  afterThis.push(() => s.close());
  const seen = record(s);
  const turnId = await s.submit(`long answer ${WORDS}`);
  const answerOf = () => s.state?.messages.find((m) => m.role === 'assistant' && m.turnId === turnId)?.content ?? '';
  await s.waitFor(() => answerOf().split(' ').length > 10, { timeoutMs: 30_000, what: 'the answer to stream' });
  const cursorAtKill = s.cursor as number;
  await stack.restartIngress('SIGKILL');
  // The worker went on writing while no ingress served the socket.
  expect((await hub.sessions.state('resume')).cursor).toBeGreaterThan(cursorAtKill);
  expect(await s.turnEnded(turnId, { timeoutMs: 60_000 })).toBe('ok');
  expect(answerOf()).toBe(Array.from({ length: WORDS }, (_, i) => `word${i + 1}`).join(' '));
  expect(s.connections).toBeGreaterThanOrEqual(2);
  // Applied frames' cursors only grow; what the stream holds is what the log folds to.
  const applied = seen.flatMap((e) => (e.type === 'frame' && !e.duplicate && e.frame.type !== 'error' ? [e.frame.cursor] : []));
  expect(applied).toEqual([...new Set(applied)].sort((a, b) => a - b));
  const stored = await hub.sessions.state('resume');
  expect(s.cursor).toBe(stored.cursor);
  expect(s.state).toEqual(stored.state);
  s.close();
});

it("an upgrade refused with 429 (the tenant's open-sockets limit) is tried again after its Retry-After, then connects", async () => {
  // A tenant of its own: the socket the SIGKILL above cut off holds its lease until that expires.
  const limited = new HubClient({ baseUrl: () => stack.url, apiKey: (await operator.admin.createTenant('limited')).apiKey });
  await limited.admin.setLimits({ openSockets: 1 });
  const holder = limited.sessions.open('holder');
  let second: SessionStream | undefined;
  try {
    await holder.waitFor(() => true, { timeoutMs: 10_000 });
    // The limit is in force on every ingress within 2 s: until then a second socket still opens.
    let refused: { at: number; delayMs: number } | undefined;
    for (const deadline = Date.now() + 10_000; !refused && Date.now() < deadline;) {
      second?.close();
      const s = limited.sessions.open('second');
      second = s;
      refused = await new Promise<{ at: number; delayMs: number } | undefined>((r) =>
        s.subscribe((e) => {
          if (e.type === 'retry' && e.refusal?.status === 429) r({ at: Date.now(), delayMs: e.delayMs });
          if (e.type === 'link' && e.link === 'live') r(undefined);
        }),
      );
    }
    expect(refused?.delayMs).toBeGreaterThanOrEqual(1_000);
    holder.close();
    const live = new Promise<number>((r) => second?.subscribe((e) => e.type === 'link' && e.link === 'live' && r(Date.now())));
    await second?.waitFor(() => true, { timeoutMs: 20_000, what: 'the second stream to connect' });
    expect((await live) - (refused?.at as number)).toBeGreaterThanOrEqual((refused?.delayMs as number) - 50);
  } finally {
    holder.close();
    second?.close();
  }
});

it('a submit with an idempotency key runs once, however often and over however many sockets it is sent', async () => {
  const first = await hub.sessions.submit('idempotent', 'read notes.txt', { idempotencyKey: 'once-1' });
  const again = await hub.sessions.submit('idempotent', 'read notes.txt', { idempotencyKey: 'once-1' });
  expect([first, again]).toEqual(['once-1', 'once-1']);
  const s = hub.sessions.open('idempotent');
  expect(await s.turnEnded('once-1', { timeoutMs: 30_000 })).toBe('ok');
  s.close();
  const turns = (await hub.sessions.turns('idempotent')).turns;
  expect(turns.map((t) => t.turnId)).toEqual(['once-1']);
  const started: string[] = [];
  for await (const e of hub.sessions.allEvents('idempotent', { limit: 5 })) if (e.type === 'TurnStarted') started.push(e.type);
  expect(started).toHaveLength(1);
  // The export streams the same log, each event once, with its hash.
  const exported: { eventId?: unknown; hash?: unknown }[] = [];
  for await (const e of hub.sessions.export('idempotent')) exported.push(e);
  const stored = await stack.events(tenantId, 'idempotent');
  expect(exported.map((e) => e.eventId)).toEqual(stored.map((e) => e.eventId));
  expect(exported.every((e) => typeof e.hash === 'string' && e.hash.length > 0)).toBe(true);
  // busyPolicy reject on a running session is refused with the hub's code.
  const busy = hub.sessions.open('busy');
  try {
    const running = await busy.submit('slow long answer 50');
    await expect(hub.sessions.submit('busy', 'read notes.txt', { busyPolicy: 'reject' })).rejects.toMatchObject({ code: 'session_busy' });
    busy.cancel();
    await busy.turnEnded(running, { timeoutMs: 30_000 });
  } finally {
    busy.close();
  }
});

it('the approvals feed shows a pending approval, and an answer through the client resolves it', async () => {
  const feed = hub.approvals.feed();
  try {
    await feed.next((e) => e.event === 'ready', 10_000);
    const s = hub.sessions.open('approve');
    afterThis.push(() => s.close());
    const turnId = await s.submit('write "ok" to out.txt');
    const pending = await feed.next((e) => e.event === 'approval' && e.data.sessionId === 'approve' && e.data.status === 'pending', 30_000);
    await hub.approvals.answer('approve', pending.data.approvalId, 'approved');
    await feed.next((e) => e.event === 'approval' && e.data.approvalId === pending.data.approvalId && e.data.status !== 'pending', 30_000);
    const again = await hub.approvals.answer('approve', pending.data.approvalId, 'denied').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(HubError);
    expect((again as HubError).status).toBe(409);
    expect(await s.turnEnded(turnId, { timeoutMs: 30_000 })).toBe('ok');
    s.close();
  } finally {
    feed.close();
  }
});

it('npm pack of the package installs into an empty folder and its example runs a session there', async () => {
  const dir = await installed;
  const { stdout } = await run(process.execPath, ['run-session.mjs', 'packed', 'read notes.txt'], {
    cwd: dir,
    env: { ...process.env, HUB_URL: stack.url, HUB_API_KEY: apiKey },
  });
  expect(JSON.parse(stdout)).toMatchObject({
    session: 'packed',
    outcome: 'ok',
    answer: expect.stringContaining('Remember to water the plants'),
    firstEvent: 'SessionOpened',
    verifier: 'function',
  });
});
