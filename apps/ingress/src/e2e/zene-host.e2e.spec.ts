import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { HubStack, TransportTestClient } from '@hub/testing';
import { BRIDGE_ARGS, runHost, runLine, shapeOf, type HostOptions } from '../zene/testing/spawn-host';

// `bin/hub host` spawned exactly as clawbridge spawns zene (one line in, stdin closed, first
// non-empty stdout line parsed, exit status read), against real ingress and worker processes.

jest.setTimeout(120_000);

const FIXTURES = path.resolve(__dirname, '../../../../../shared/fixtures/zene');
const fixture = (f: string) => readFileSync(path.join(FIXTURES, f), 'utf8');
const SUCCESS_SHAPE = shapeOf(JSON.parse(fixture('bridge-compat/response-success.json')));
const ERROR_SHAPE = shapeOf(JSON.parse(fixture('bridge-compat/response-error-timeout.json')));

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };
/** A tenant whose key is revoked (preflight's refusal), made beside the first (CLI runs, about a second each). */
let revoked: { apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'zene', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '5' } });
  const revoking = stack.createTenant('revoked').then(async (t) => (await stack.revokeKey(t.keyPrefix), t));
  [tenant, revoked] = await Promise.all([stack.createTenant('bridge'), revoking]);
});
afterAll(() => stack?.stop());

const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const host = (input: HostOptions['input'], extra: Partial<HostOptions> = {}) => runHost({ hubUrl: stack.url, apiKey: tenant.apiKey, baseEnv, input, ...extra });
/**
 * A host started now whose one line is written later: it starts and preflights while an earlier
 * run still goes, and its request reaches the hub the moment the test writes it (a host takes
 * about a second to start, which a test waited out run by run, and a turn had to outlast).
 */
const hostLater = (extra: Partial<HostOptions> = {}) => {
  let child: ChildProcess | undefined;
  const done = host('interactive', { ...extra, onSpawn: (c) => (child = c) });
  return { send: (line: string) => (child?.stdin?.end(line), done) };
};
const events = (session: string) => stack.events(tenant.tenantId, session);
const turnsOf = async (session: string) => (await events(session)).filter((e) => e.type === 'TurnRequested');

describe('a run, as clawbridge sends it', () => {
  it('answers with one flat JSON line: text, real usage, the fixture keys and types; exit 0', async () => {
    const line = runLine({
      request_id: 'req_001',
      session_id: 'qq_user_42',
      channel_id: 'qq_group_7',
      agent: 'default',
      prompt: 'hello there',
      timeout_ms: 30000,
      idempotency_key: 'msg_9980',
    }); // not the fixture's msg_9981: a reused key with another prompt is refused
    const r = await host(line);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(shapeOf(r.first)).toEqual(SUCCESS_SHAPE);
    expect(r.first).toEqual(expect.objectContaining({ ok: true, request_id: 'req_001', session_id: 'qq_user_42', error_code: null, error_message: null }));
    expect(r.first.text).toMatch(/hello there/);
    const usage = r.first.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    expect(usage.total_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    const [requested] = await turnsOf('qq_user_42');
    expect(requested.data).toEqual(
      expect.objectContaining({
        context: { zene: { request_id: 'req_001', idempotency_key: 'msg_9980', channel_id: 'qq_group_7', agent: 'default' } },
        busyPolicy: 'reject',
      }),
    );
    expect(requested.metadata).toEqual(expect.objectContaining({ protocol: 'zene' }));
    const completed = (await events('qq_user_42')).find((e) => e.type === 'TurnCompleted');
    expect(completed?.type === 'TurnCompleted' && completed.data.usage.totalTokens).toBe(usage.total_tokens);
  });

  it('one session_id is one conversation across invocations', async () => {
    const next = hostLater();
    const first = await host(runLine({ request_id: 'c-1', session_id: 'conv', prompt: 'my name is Ada', idempotency_key: 'c-1' }));
    const second = await next.send(runLine({ request_id: 'c-2', session_id: 'conv', prompt: 'what is my name', idempotency_key: 'c-2' }));
    expect([first.first.ok, second.first.ok]).toEqual([true, true]);
    const log = await events('conv');
    expect(log.filter((e) => e.type === 'TurnRequested')).toHaveLength(2);
    const counts = log.flatMap((e) => (e.type === 'ModelCallStarted' ? [e.data.messageCount] : []));
    expect(counts[1]).toBeGreaterThan(counts[0]); // the second turn's model call saw the first turn
  });

  it('every upstream bridge-compat request fixture is accepted; replies have the fixture shape', async () => {
    const files = ['request-run.json', 'request-run-zh.json', 'request-run-snapshot.json'];
    // One after the other: they share a session, and a second run in a busy session is BUSY.
    const hosts = files.map(() => hostLater());
    const runs = [];
    for (const [i, f] of files.entries()) runs.push(await hosts[i].send(fixture(`bridge-compat/${f}`)));
    for (const [i, r] of runs.entries()) {
      const sent = JSON.parse(fixture(`bridge-compat/${files[i]}`)) as { request_id: string };
      expect(r.code).toBe(0);
      expect(shapeOf(r.first)).toEqual(SUCCESS_SHAPE);
      expect(r.first).toEqual(expect.objectContaining({ ok: true, request_id: sent.request_id }));
    }
  });
});

describe('exit 3: preflight, before the request runs', () => {
  it('hub unreachable, key refused, key revoked, key missing: one JSON line, exit 3, nothing appended', async () => {
    const before = await stack.countAllEvents();
    const line = runLine({ request_id: 'r3', session_id: 'pre', prompt: 'hello' });
    const [down, refused, gone, missing] = await Promise.all([
      host(line, { hubUrl: `http://127.0.0.1:${await closedPort()}` }),
      host(line, { apiKey: 'hub_not_a_real_key_000000000000' }),
      host(line, { apiKey: revoked.apiKey }),
      host(line, { apiKey: null }),
    ]);
    expect([down, refused, gone, missing].map((r) => [r.code, r.lines.length, r.first.error_code])).toEqual([
      [3, 1, 'PROVIDER_DOWN'],
      [3, 1, 'PROVIDER_AUTH'],
      [3, 1, 'PROVIDER_AUTH'],
      [3, 1, 'PROVIDER_AUTH'],
    ]);
    for (const r of [down, refused]) expect(shapeOf(r.first)).toEqual(ERROR_SHAPE);
    // The request is read first: the reply names the request's own ids (the schema requires them).
    expect([down, refused, gone, missing].map((r) => [r.first.request_id, r.first.session_id])).toEqual(Array(4).fill(['r3', 'pre']));
    expect(await stack.countAllEvents()).toBe(before);
  });

  it("protocol mode, hub unreachable: an error line with the request's ids, exit 3; bad input is still exit 2; no input: unknown ids", async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const [run, bad, none] = await Promise.all([
      host(runLine({ request_id: 'p3', session_id: 'pre-p', prompt: 'hi' }), { hubUrl: down, args: ['host', '--protocol', 'v1', '--single-request', 'false'] }),
      host('{oops\n', { hubUrl: down }),
      host('', { hubUrl: down }),
    ]);
    expect([run.code, run.lines.length, run.first.type, run.first.request_id, run.first.session_id, (run.first.error as { code: string }).code]).toEqual([
      3,
      1,
      'error',
      'p3',
      'pre-p',
      'PROVIDER_DOWN',
    ]);
    expect([bad.code, bad.first.error_code]).toEqual([2, 'INVALID_REQUEST']);
    expect([none.code, none.first.error_code, none.first.request_id]).toEqual([3, 'PROVIDER_DOWN', 'unknown']);
  });
});

describe('bad input never crashes the host', () => {
  const invalidUtf8 = Buffer.concat([Buffer.from('{"request_id":"u","session_id":"s","prompt":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}\n')]);
  const cases: [string, HostOptions['input']][] = [
    ['random bytes', randomBytes(64 * 1024)],
    ['invalid UTF-8', invalidUtf8],
    ['a 10 MB line', runLine({ request_id: 'big', session_id: 's', prompt: 'x'.repeat(10 * 1024 * 1024) })],
    ['empty stdin', ''],
    ['closed stdin', 'none'],
    ['only blank lines', '\n  \n\t\n'],
    ['unparseable JSON', '{"request_id": "r", \n'],
    ['a JSON array', '[1,2,3]\n'],
    ['missing prompt', runLine({ request_id: 'r', session_id: 's' })],
    ['blank session_id', runLine({ request_id: 'r', session_id: '   ', prompt: 'p' })],
    ['protocol_version 2', runLine({ protocol_version: 2, request_id: 'r', session_id: 's', prompt: 'p' })],
  ];

  it('each case: exit 2, exactly one INVALID_REQUEST JSON line, no stack trace, nothing appended', async () => {
    const before = await stack.countAllEvents();
    const runs = await Promise.all(cases.map(([, input]) => host(input)));
    for (const [i, r] of runs.entries()) {
      const name = cases[i][0];
      expect({ name, code: r.code, lines: r.lines.length, error: r.first.error_code }).toEqual({ name, code: 2, lines: 1, error: 'INVALID_REQUEST' });
      expect(shapeOf(r.first)).toEqual(ERROR_SHAPE);
      expect(r.stdout).not.toMatch(/\n\s+at /);
      expect(r.stderr).not.toMatch(/Unhandled|uncaught/i);
    }
    expect(runs[1].first.error_message).toMatch(/UTF-8/);
    expect(runs[2].first.error_message).toMatch(/input size limit of 1048576 bytes/);
    expect(runs[3].first.error_message).toMatch(/no request/);
    expect(await stack.countAllEvents()).toBe(before);
  });

  it('--max-input-bytes sets the limit', async () => {
    const r = await host(runLine({ request_id: 'r', session_id: 's', prompt: 'y'.repeat(300) }), { args: [...BRIDGE_ARGS, '--max-input-bytes', '256'] });
    expect([r.code, r.first.error_code, r.first.error_message]).toEqual([2, 'INVALID_REQUEST', expect.stringMatching(/limit of 256 bytes/)]);
  });
});

describe('timeouts', () => {
  it('timeout_ms is a hard limit: TIMEOUT, exit 0, and the turn is cancelled in the hub', async () => {
    const t0 = Date.now();
    const r = await host(runLine({ request_id: 'slow-1', session_id: 'slow', prompt: 'slow long answer 300', timeout_ms: 1500, idempotency_key: 'slow-1' }));
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(r.code).toBe(0);
    expect(r.first).toEqual(expect.objectContaining({ ok: false, error_code: 'TIMEOUT', error_message: 'request exceeded timeout_ms', text: '' }));
    expect(shapeOf(r.first)).toEqual(ERROR_SHAPE);
    const log = await events('slow');
    const cancelled = log.find((e) => e.type === 'TurnCancelled');
    expect(cancelled?.data).toEqual(expect.objectContaining({ turnId: 'zene:k:slow-1', reason: 'timeout' }));
    // Not left running: nothing more is written for it, and it never completes.
    await new Promise((res) => setTimeout(res, 1500));
    const later = await events('slow');
    expect(later.filter((e) => e.globalPosition > (cancelled?.globalPosition ?? 0) && 'turnId' in e.data)).toEqual([]);
    expect(later.some((e) => e.type === 'TurnCompleted')).toBe(false);
  });
});

describe('one turn per session', () => {
  it('a second run while one runs is BUSY (retryable); --busy-policy enqueue waits its turn instead', async () => {
    // The later runs' hosts start beside the first, so their requests land within its turn at once.
    const [secondHost, queuedHost, retryHost] = [hostLater(), hostLater({ args: [...BRIDGE_ARGS, '--busy-policy', 'enqueue'] }), hostLater()];
    const first = host(runLine({ request_id: 'b-1', session_id: 'busy', prompt: 'slow long answer 80', idempotency_key: 'b-1' }));
    await waitFor(async () => (await events('busy')).some((e) => e.type === 'TurnStarted'));
    const [second, queued] = await Promise.all([
      secondHost.send(runLine({ request_id: 'b-2', session_id: 'busy', prompt: 'hello', idempotency_key: 'b-2' })),
      queuedHost.send(runLine({ request_id: 'b-3', session_id: 'busy', prompt: 'hello again', idempotency_key: 'b-3' })),
    ]);
    expect([second.code, second.first.ok, second.first.error_code]).toEqual([0, false, 'BUSY']);
    expect(shapeOf(second.first)).toEqual(ERROR_SHAPE);
    expect([queued.code, queued.first.ok, queued.first.text]).toEqual([0, true, expect.stringMatching(/hello again/)]);
    expect((await first).first.ok).toBe(true);
    // The rejected run appended nothing; a retry with the same key is a fresh attempt and runs.
    expect((await turnsOf('busy')).map((e) => e.type === 'TurnRequested' && e.data.turnId)).toEqual(['zene:k:b-1', 'zene:k:b-3']);
    const retry = await retryHost.send(runLine({ request_id: 'b-2-retry', session_id: 'busy', prompt: 'hello', idempotency_key: 'b-2' }));
    expect(retry.first.ok).toBe(true);
  });
});

describe('idempotency_key', () => {
  it('a repeat while the first runs waits for it; a repeat after returns it; one turn in all', async () => {
    const line = (id: string) => runLine({ request_id: id, session_id: 'idem', prompt: 'slow long answer 80', idempotency_key: 'same-key' });
    const [repeatHost, afterHost] = [hostLater(), hostLater()];
    const first = host(line('i-1'));
    await waitFor(async () => (await turnsOf('idem')).length > 0);
    const whileRunning = await repeatHost.send(line('i-2'));
    const after = await afterHost.send(line('i-3'));
    const results = [await first, whileRunning, after];
    expect(results.map((r) => [r.code, r.first.ok, r.first.request_id])).toEqual([
      [0, true, 'i-1'],
      [0, true, 'i-2'],
      [0, true, 'i-3'],
    ]);
    expect(new Set(results.map((r) => r.first.text)).size).toBe(1);
    expect(new Set(results.map((r) => JSON.stringify(r.first.usage))).size).toBe(1);
    expect(await turnsOf('idem')).toHaveLength(1);
  });
});

describe('watching', () => {
  it('a turn sent through hub host streams live on the Harness transport WebSocket', async () => {
    const ws = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'watched' });
    await ws.waitFor('snapshot', (c) => c.state !== null);
    let hostRunning = false;
    const run = host(runLine({ request_id: 'w-1', session_id: 'watched', prompt: 'long answer 200', idempotency_key: 'w-1' }), {
      onSpawn: (child) =>
        void ws.waitFor('streamed text', (c) => (c.lastAssistant()?.content.length ?? 0) > 20).then(() => (hostRunning = child.exitCode === null)),
    });
    await ws.waitFor('the user message', (c) => c.state?.messages.some((m) => m.role === 'user' && m.content === 'long answer 200') ?? false);
    const r = await run;
    await ws.waitFor('the turn to end', (c) => c.state?.status === 'idle' && c.lastAssistant()?.status === 'complete');
    expect(hostRunning).toBe(true); // text reached the socket while the host was still waiting
    expect(ws.lastAssistant()?.content).toBe(r.first.text);
    expect(ws.frames.filter((f) => f.type === 'delta').length).toBeGreaterThan(5);
    await ws.close();
  });

  it('an approval during a turn waits (up to timeout_ms) for the inbox or another protocol', async () => {
    const ws = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'approve' });
    await ws.waitFor('snapshot', (c) => c.state !== null);
    const run = host(runLine({ request_id: 'a-1', session_id: 'approve', prompt: 'write "hi" to hi.txt', timeout_ms: 20000 }));
    await ws.waitFor('a pending approval', (c) => c.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    ws.send([{ type: 'approve', approvalId: ws.lastAssistant()?.toolCalls?.[0]?.approval?.id }]);
    const r = await run;
    expect([r.code, r.first.ok, r.first.text]).toEqual([0, true, expect.stringMatching(/Done: wrote 2 bytes to hi.txt/)]);
    await ws.close();
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
