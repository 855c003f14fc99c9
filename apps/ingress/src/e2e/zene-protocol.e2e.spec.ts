import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { Client } from 'pg';
import { HubStack } from '@hub/testing';
import { LiveHost, runHost, runLine, shapeOf, type HostOptions } from '../zene/testing/spawn-host';

// The advanced (protocol) mode of `bin/hub host`, every error code, exit 4, and the same JSON
// over HTTP (`POST /v1/zene`), against real ingress and worker processes.

jest.setTimeout(120_000);

const FIXTURES = path.resolve(__dirname, '../../../../../shared/fixtures/zene');
const fixture = (f: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8'));
const sequence = (f: string) => fixture(f) as unknown as Record<string, unknown>[];
const ERROR_SHAPE = shapeOf(fixture('bridge-compat/response-error-provider-auth.json'));

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'zenep', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '5' } });
  tenant = await stack.createTenant('bridge');
});
afterAll(() => stack?.stop());

const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const host = (input: HostOptions['input'], extra: Partial<HostOptions> = {}) => runHost({ hubUrl: stack.url, apiKey: tenant.apiKey, baseEnv, input, ...extra });
const live = () => new LiveHost({ hubUrl: stack.url, apiKey: tenant.apiKey, baseEnv });
/**
 * Opens a transaction with an xid and keeps it open until released: xids are cluster-wide, so
 * every event committed meanwhile stays unsettled (held back from feeds) until then.
 */
async function holdSettling(): Promise<() => Promise<void>> {
  const holder = new Client({ connectionString: stack.databaseUrl });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT pg_current_xact_id()');
  return () =>
    holder.query('ROLLBACK').then(
      () => holder.end(),
      () => holder.end(),
    );
}
const of = (requestId: string, type?: string, status?: string) => (l: Record<string, unknown>) =>
  l.request_id === requestId && (type === undefined || l.type === type) && (status === undefined || l.status === status);

describe('protocol mode (long-lived, --single-request false)', () => {
  it('ping, run with ack and events, cancel, session_close: the upstream lines, in their shapes', async () => {
    const h = live();
    h.send(fixture('protocol-v1/ping-request.json'));
    h.send({ ...fixture('protocol-v1/run-stream-request.json'), prompt: 'slow long answer 400' });
    const pong = await h.waitForLine(of('ping-001', 'ack', 'PONG'));
    const [streamAck, streamAccepted] = sequence('protocol-v1/run-stream-responses.sequence.json');
    const ack = await h.waitForLine(of('run-001', 'ack'));
    const accepted = await h.waitForLine(of('run-001', 'event'));
    // The cancel fixture names its target; its session is filled in by the host from the run.
    const { session_id: _session, ...cancel } = fixture('protocol-v1/cancel-request.json');
    h.send(cancel);
    const [cancelAck, cancelFinal] = sequence('protocol-v1/cancel-responses.sequence.json');
    const cancelled = await h.waitForLine(of('cancel-001', 'ack'));
    const final = await h.waitForLine(of('run-001', 'final'));
    h.send({ protocol_version: 1, type: 'session_close', request_id: 'close-1', session_id: 's-user-1' });
    await h.waitForLine(of('close-1', 'ack', 'SESSION_CLOSED'));
    const r = await h.end();
    expect(r.code).toBe(0);
    expect(shapeOf(pong)).toEqual(shapeOf(fixture('protocol-v1/ping-ack.json')));
    expect([ack.status, shapeOf(ack)]).toEqual(['ACCEPTED', shapeOf(streamAck)]);
    expect([accepted.event_type, shapeOf({ ...accepted, payload: {} })]).toEqual(['REQUEST_ACCEPTED', shapeOf({ ...streamAccepted, payload: {} })]);
    expect(accepted.payload).toEqual({ timeout_ms: 120000, metadata: { channel: 'clawbridge', trace_id: 'trace-001' } });
    expect([cancelled.status, cancelled.target_request_id, shapeOf(cancelled)]).toEqual(['CANCEL_ACCEPTED', 'run-001', shapeOf(cancelAck)]);
    expect([final.status, shapeOf(final)]).toEqual(['CANCELED', shapeOf({ ...cancelFinal, usage: final.usage })]);
    expect((final.usage as { total_tokens: number }).total_tokens).toBeGreaterThanOrEqual(0);
    expect(r.lines.map((l) => `${l.request_id}:${l.type}:${l.status ?? l.event_type}`)).toContain('run-001:event:RUN_FINISHED');
    const events = await stack.events(tenant.tenantId, 's-user-1');
    expect(events.find((e) => e.type === 'TurnCancelled')?.data).toEqual(expect.objectContaining({ turnId: 'zene:k:idem-001', reason: 'user' }));
  });

  it("a cancel after the run's ACCEPTED: the cancel's CANCEL_ACCEPTED comes before the run's CANCELED final, every time", async () => {
    const h = live();
    const order: string[][] = [];
    for (let i = 0; i < 4; i++) {
      h.send({ protocol_version: 1, type: 'run', request_id: `co-run-${i}`, session_id: `co-${i}`, prompt: 'slow long answer 400', stream: false });
      await h.waitForLine(of(`co-run-${i}`, 'ack', 'ACCEPTED'));
      h.send({ protocol_version: 1, type: 'cancel', request_id: `co-cancel-${i}`, session_id: `co-${i}`, target_request_id: `co-run-${i}` });
      await h.waitForLine(of(`co-run-${i}`, 'final'));
      await h.waitForLine(of(`co-cancel-${i}`));
      order.push(
        h.lines.filter((l) => l.request_id === `co-cancel-${i}` || (l.request_id === `co-run-${i}` && l.type === 'final')).map((l) => `${l.type}:${l.status}`),
      );
    }
    expect((await h.end()).code).toBe(0);
    // cancel-responses.sequence.json: the ack, then the final.
    const fixtureOrder = sequence('protocol-v1/cancel-responses.sequence.json').map((l) => `${l.type}:${l.status}`);
    expect(order).toEqual(Array(4).fill(fixtureOrder));
  });

  it('lines are taken in the order they arrive: a cancel written 50 ms after its run cancels it', async () => {
    const h = live();
    h.send({ protocol_version: 1, type: 'run', request_id: 'fast-run', session_id: 'fast-cancel', prompt: 'slow long answer 400', stream: false });
    await new Promise((r) => setTimeout(r, 50));
    h.send({ protocol_version: 1, type: 'cancel', request_id: 'fast-cancel-1', target_request_id: 'fast-run' });
    const cancel = await h.waitForLine(of('fast-cancel-1'));
    const final = await h.waitForLine(of('fast-run', 'final'));
    expect((await h.end()).code).toBe(0);
    expect([cancel.type, cancel.status, cancel.session_id, final.status]).toEqual(['ack', 'CANCEL_ACCEPTED', 'fast-cancel', 'CANCELED']);
  });

  it('every protocol-v1 run fixture is accepted; a repeat is replayed or DUPLICATE_IN_PROGRESS; a timeout is TIMEOUT', async () => {
    const h = live();
    const send = async (f: string, patch: Record<string, unknown> = {}) => {
      const request = { ...fixture(`protocol-v1/${f}`), ...patch };
      h.send(request);
      return h.waitForLine((l) => l.request_id === request.request_id && l.type !== 'ack' && l.type !== 'event');
    };
    const first = await send('run-idempotent-first-request.json');
    const replay = await send('run-idempotent-retry-request.json');
    const noKey = await send('run-invalid-missing-idempotency-request.json');
    const timeout = await send('run-timeout-request.json', { prompt: 'slow long answer 300' });
    expect([first.status, noKey.status, (first.usage as { total_tokens: number }).total_tokens > 0]).toEqual(['OK', 'OK', true]);
    expect([replay.status, replay.replayed, replay.text]).toEqual(['OK', true, first.text]);
    expect(shapeOf(replay)).toEqual(shapeOf(fixture('protocol-v1/final-replayed.json')));
    expect(shapeOf(timeout)).toEqual(shapeOf(fixture('protocol-v1/run-timeout-final.json')));
    expect([timeout.status, timeout.text, timeout.error]).toEqual([
      'TIMEOUT',
      fixture('protocol-v1/run-timeout-final.json').text,
      { code: 'TIMEOUT', message: 'request exceeded timeout_ms', retryable: true },
    ]);
    // A repeat while the first still runs is acknowledged as a duplicate, naming the first. Ids of
    // their own: the fixtures above already used run-a / run-b on this host, and waiting for
    // "run-a's ACCEPTED" would match the first fixture's ack and send the repeat too early.
    const dupRun = (requestId: string) => ({
      protocol_version: 1,
      type: 'run',
      request_id: requestId,
      session_id: 'dup',
      prompt: 'slow long answer 150',
      idempotency_key: 'dup-key',
      stream: false,
    });
    h.send(dupRun('dup-a'));
    await h.waitForLine(of('dup-a', 'ack', 'ACCEPTED'));
    h.send(dupRun('dup-b'));
    const duplicate = await h.waitForLine(of('dup-b', 'ack'));
    expect([duplicate.status, duplicate.existing_request_id]).toEqual(['DUPLICATE_IN_PROGRESS', 'dup-a']);
    expect(shapeOf(duplicate)).toEqual(shapeOf(fixture('protocol-v1/ack-duplicate-in-progress.json')));
    const dupTurns = (await stack.events(tenant.tenantId, 'dup')).filter((e) => e.type === 'TurnRequested');
    expect(dupTurns).toHaveLength(1);
    h.send({ protocol_version: 1, type: 'run', request_id: 'blank-001', session_id: 's', prompt: '   ' });
    const invalid = await h.waitForLine(of('blank-001', 'error'));
    expect(shapeOf(invalid)).toEqual(shapeOf(fixture('protocol-v1/error-invalid-request.json')));
    const r = await h.end(); // waits for dup-a's final before exiting
    expect(r.code).toBe(0);
    expect(r.lines.find(of('dup-a', 'final'))?.status).toBe('OK');
    expect(r.lines.filter(of('dup-b'))).toEqual([duplicate]); // the duplicate ack ends the repeat
  });

  it('two repeats at once: whichever the hub decides first is ACCEPTED, the other DUPLICATE_IN_PROGRESS naming it', async () => {
    // Sent together, the order the worker decides them in is not the order they were written:
    // the turn id is the key, so exactly one starts the turn and the other names it, also while
    // the winner's events are not yet settled.
    const h = live();
    const run = (requestId: string) => ({
      protocol_version: 1,
      type: 'run',
      request_id: requestId,
      session_id: 'dup-race',
      prompt: 'long answer 20',
      idempotency_key: 'race-key',
      stream: false,
    });
    const release = await holdSettling();
    let acks: Record<string, unknown>[];
    try {
      h.send(run('race-1'));
      h.send(run('race-2'));
      acks = await Promise.all([h.waitForLine(of('race-1', 'ack')), h.waitForLine(of('race-2', 'ack'))]);
    } finally {
      await release();
    }
    const r = await h.end();
    const first = acks.find((a) => a.status === 'ACCEPTED');
    const repeat = acks.find((a) => a.status === 'DUPLICATE_IN_PROGRESS');
    expect([first?.request_id, repeat?.request_id].sort()).toEqual(['race-1', 'race-2']);
    expect(repeat?.existing_request_id).toBe(first?.request_id);
    expect(r.lines.filter((l) => l.type === 'final').map((l) => [l.request_id, l.status])).toEqual([[first?.request_id, 'OK']]);
    expect((await stack.events(tenant.tenantId, 'dup-race')).filter((e) => e.type === 'TurnRequested')).toHaveLength(1);
  });

  it('a repeat names the first request even while the first turn is not yet settled in the log', async () => {
    // The settled feed lags the committed log while any transaction in the cluster is open; the
    // repeat is planned from the committed log, so it still finds the running first turn.
    const h = live();
    const run = (requestId: string) => ({
      protocol_version: 1,
      type: 'run',
      request_id: requestId,
      session_id: 'dup-held',
      prompt: 'long answer 20',
      idempotency_key: 'held-key',
      stream: false,
    });
    const release = await holdSettling();
    let duplicate: Record<string, unknown>;
    try {
      h.send(run('held-1'));
      await h.waitForLine(of('held-1', 'ack', 'ACCEPTED'));
      h.send(run('held-2'));
      duplicate = await h.waitForLine(of('held-2', 'ack'));
    } finally {
      await release();
    }
    const r = await h.end();
    expect([duplicate.status, duplicate.existing_request_id]).toEqual(['DUPLICATE_IN_PROGRESS', 'held-1']);
    expect(r.lines.find(of('held-1', 'final'))?.status).toBe('OK');
  });

  it('single-request protocol mode: a failing turn is a final ERROR with upstream text; bad input is exit 2', async () => {
    const args = ['host', '--protocol', 'v1', '--single-request'];
    const [failed, bad] = await Promise.all([
      host(runLine({ request_id: 'pf-1', session_id: 'pf', prompt: 'fail with auth' }), { args }),
      host('{oops\n', { args }),
    ]);
    expect([failed.code, failed.lines.map((l) => l.type)]).toEqual([0, ['ack', 'event', 'event', 'final']]);
    expect(failed.lines[3]).toEqual(
      expect.objectContaining({
        status: 'ERROR',
        text: 'Provider authentication failed. Please verify credentials and retry later.',
        error: expect.objectContaining({ code: 'PROVIDER_AUTH', retryable: false }),
      }),
    );
    expect([bad.code, bad.lines.length, bad.first.type, (bad.first.error as { code: string }).code]).toEqual([2, 1, 'error', 'INVALID_REQUEST']);
  });
});

describe('every error code, as clawbridge receives it', () => {
  it('provider failures map to PROVIDER_AUTH / PROVIDER_RATE_LIMIT / PROVIDER_DOWN / TIMEOUT / INTERNAL (exit 0)', async () => {
    // Retryable provider errors are retried by the worker (about 30 s) before the turn fails.
    const cases = [
      ['auth', 'PROVIDER_AUTH'],
      ['rate_limit', 'PROVIDER_RATE_LIMIT'],
      ['down', 'PROVIDER_DOWN'],
      ['timeout', 'TIMEOUT'],
      ['internal', 'INTERNAL'],
    ];
    const runs = await Promise.all(
      cases.map(([what]) => host(runLine({ request_id: `e-${what}`, session_id: `err-${what}`, prompt: `fail with ${what}`, timeout_ms: 90000 }))),
    );
    expect(runs.map((r) => [r.code, r.lines.length, r.first.ok, r.first.error_code])).toEqual(cases.map(([, code]) => [0, 1, false, code]));
    for (const r of runs) expect(shapeOf(r.first)).toEqual(ERROR_SHAPE);
  }, 110_000);
});

describe('exit 4: the hub fails mid-request', () => {
  let fake: Server;
  let fakeUrl: string;
  let mode: 'garbage' | 'hang' = 'garbage';
  // When the run request reached the fake hub: the host's deadline runs from there, not from the
  // spawn (starting the CLI took up to 9 s on a loaded CI machine).
  let requestAt = 0;
  beforeAll(async () => {
    fake = createServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (mode === 'garbage') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
      requestAt = Date.now(); // hang: never answer
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
  });
  afterAll(() => {
    fake.closeAllConnections();
    fake.close();
  });

  it('an answer that is not the protocol: one INTERNAL line, exit 4', async () => {
    mode = 'garbage';
    const r = await host(runLine({ request_id: 'x4', session_id: 's', prompt: 'p' }), { hubUrl: fakeUrl, apiKey: 'k' });
    expect([r.code, r.lines.length, r.first.error_code, r.first.request_id]).toEqual([4, 1, 'INTERNAL', 'x4']);
  });

  it('a hub that never answers: the host keeps its own hard deadline and answers TIMEOUT, exit 0', async () => {
    mode = 'hang';
    requestAt = 0;
    const r = await host(runLine({ request_id: 'h0', session_id: 's', prompt: 'p', timeout_ms: 500 }), {
      hubUrl: fakeUrl,
      apiKey: 'k',
      args: ['host', '--protocol', 'v1', '--bridge-compat', '--single-request', '--deadline-margin-ms', '300'],
    });
    const answeredAt = Date.now();
    expect([r.code, r.lines.length, r.first.error_code]).toEqual([0, 1, 'TIMEOUT']);
    expect(requestAt).toBeGreaterThan(0);
    // 500 ms of timeout plus the 300 ms margin, and the process's exit; far from "never".
    expect(answeredAt - requestAt).toBeLessThan(4_000);
  });
});

describe('POST /v1/zene', () => {
  const post = (body: string, opts: { key?: string; type?: string; query?: string } = {}) =>
    fetch(`${stack.url}/v1/zene${opts.query ?? ''}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${opts.key ?? tenant.apiKey}`, 'Content-Type': opts.type ?? 'application/json' },
      body,
    });

  it('takes the same JSON and answers the flat reply, or protocol-mode NDJSON with ?mode=protocol', async () => {
    const flat = await post(runLine({ request_id: 'h-1', session_id: 'http', prompt: 'hello http', idempotency_key: 'h-1' }));
    expect(flat.status).toBe(200);
    const reply = (await flat.json()) as Record<string, unknown>;
    expect(shapeOf(reply)).toEqual(shapeOf(fixture('bridge-compat/response-success.json')));
    expect(reply).toEqual(expect.objectContaining({ ok: true, request_id: 'h-1', text: expect.stringMatching(/hello http/) }));
    const streamed = await post(runLine({ request_id: 'h-2', session_id: 'http', prompt: 'again', stream: false }), { query: '?mode=protocol' });
    expect(streamed.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = (await streamed.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.type, l.status])).toEqual([
      ['ack', 'ACCEPTED'],
      ['final', 'OK'],
    ]);
  });

  it('answers bad input, an oversized NDJSON body and a refused key in the zene shape', async () => {
    const bad = await post('{nope', { type: 'application/x-ndjson' });
    const big = await post(runLine({ request_id: 'big', session_id: 's', prompt: 'x'.repeat(2 * 1024 * 1024) }), { type: 'application/x-ndjson' });
    const refused = await post(runLine({ request_id: 'k-1', session_id: 's', prompt: 'p' }), { key: 'hub_bogus' });
    // application/json bodies are parsed before routing; their failures still answer in this shape
    const badJson = await post('{nope', { type: 'application/json' });
    const bigJson = await post(runLine({ request_id: 'big', session_id: 's', prompt: 'x'.repeat(2 * 1024 * 1024) }), { type: 'application/json' });
    const bodies = await Promise.all([bad, big, refused, badJson, bigJson].map((r) => r.json() as Promise<Record<string, unknown>>));
    expect([bad.status, big.status, refused.status, badJson.status, bigJson.status]).toEqual([400, 400, 401, 400, 413]);
    expect(bodies.map((b) => b.error_code)).toEqual(['INVALID_REQUEST', 'INVALID_REQUEST', 'PROVIDER_AUTH', 'INVALID_REQUEST', 'INVALID_REQUEST']);
    for (const b of bodies) expect(shapeOf(b)).toEqual(ERROR_SHAPE);
    expect(bodies[2].request_id).toBe('k-1');
  });
});
