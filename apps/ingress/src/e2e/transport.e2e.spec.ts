import { MAX_COMMANDS_PER_MESSAGE, WIRE_ERROR_CODE_LIST } from '@hub/protocol-transport';
import { HubStack, TransportTestClient } from '@hub/testing';

// The Harness transport WebSocket against real ingress and worker processes on real Postgres
// and Redis (issue "First full turn"): snapshot + deltas, approvals, cursors, tenancy, bad input.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'transport', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '2' } });
  tenant = await stack.createTenant('acme');
});
afterAll(() => stack?.stop());

const connect = (session: string, extra: Record<string, string | number> = {}) => TransportTestClient.connect(stack.url, tenant.apiKey, { session, ...extra });

async function runTurn(session: string, prompt: string): Promise<TransportTestClient> {
  const c = await connect(session);
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the turn to finish', (x) => {
    const m = x.state?.messages[before + 1];
    return !!m && m.status === 'complete' && x.state?.status === 'idle';
  });
  return c;
}

describe('a prompt over /v1/transport', () => {
  it('streams snapshot + deltas that assemble to what a new connection gets, with a tool call', async () => {
    const c = await runTurn('s-read', 'read notes.txt');
    const first = c.frames[0];
    expect(first.type).toBe('state');
    expect(c.frames.some((f) => f.type === 'delta' && f.operations.some((o) => o.type === 'append-text'))).toBe(true);
    const answer = c.lastAssistant();
    expect(answer?.toolCalls).toEqual([expect.objectContaining({ name: 'read_file', status: 'complete' })]);
    expect(answer?.content).toContain('Remember to water the plants');
    // every frame carries a cursor, and cursors only grow
    const cursors = c.frames.map((f) => (f.type === 'error' ? undefined : f.cursor));
    expect(cursors.every((x) => typeof x === 'number')).toBe(true);
    expect([...cursors].sort((a, b) => (a as number) - (b as number))).toEqual(cursors);
    const fresh = await connect('s-read');
    await fresh.waitFor('snapshot', (x) => x.state !== null);
    expect(fresh.frames[0].type).toBe('state');
    expect(fresh.state).toEqual(c.state);
    await Promise.all([c.close(), fresh.close()]);
  });

  it('pauses an ask tool for approval; approve resumes it to the answer', async () => {
    const c = await connect('s-approve');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'write "ok" to out.txt' }]);
    await c.waitFor('a pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    expect(c.state?.status).toBe('running');
    const approval = c.lastAssistant()?.toolCalls?.[0]?.approval;
    expect(approval).toEqual(expect.objectContaining({ riskTier: 'medium' }));
    c.send([{ type: 'approve', approvalId: approval?.id }]);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    const msg = c.lastAssistant();
    expect(msg?.toolCalls?.[0]).toEqual(expect.objectContaining({ status: 'complete', approval: expect.objectContaining({ status: 'approved' }) }));
    expect(msg?.content).toMatch(/wrote|Done/i);
    // the write took effect in the session's workspace
    const again = await runTurn('s-approve', 'read out.txt');
    expect(again.lastAssistant()?.content).toContain('The file out.txt says: ok');
    await Promise.all([c.close(), again.close()]);
  });

  it('deny leads to an answer that says the call was denied', async () => {
    const c = await connect('s-deny');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'delete notes.txt' }]);
    await c.waitFor('a pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    c.send([{ type: 'deny', approvalId: c.lastAssistant()?.toolCalls?.[0]?.approval?.id, reason: 'not today' }]);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    expect(c.lastAssistant()?.content).toMatch(/denied/i);
    expect(c.lastAssistant()?.toolCalls?.[0]?.approval?.status).toBe('denied');
    const events = await stack.events(tenant.tenantId, 's-deny');
    expect(events.find((e) => e.type === 'ApprovalResolved')?.data).toEqual(
      expect.objectContaining({ decision: 'denied', reason: 'not today', by: expect.objectContaining({ type: 'api_key', id: tenant.keyPrefix }) }),
    );
    await c.close();
  });

  it('resumes from ?after=CURSOR after a disconnect mid-turn: same state as an uninterrupted client', async () => {
    const watcher = await connect('s-resume');
    await watcher.waitFor('snapshot', (x) => x.state !== null);
    const flaky = await connect('s-resume');
    await flaky.waitFor('snapshot', (x) => x.state !== null);
    watcher.send([{ type: 'submit', prompt: 'long answer 400' }]);
    await flaky.waitFor('some streamed text', (x) => (x.lastAssistant()?.content.length ?? 0) > 50);
    const cursor = flaky.cursor;
    const partial = flaky.state;
    await flaky.close();
    await watcher.waitFor('the turn to end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    // the client keeps its state and applies only what it missed
    const resumed = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 's-resume', after: cursor }, {}, { state: partial, cursor });
    await resumed.waitFor('catch-up', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    expect(resumed.frames.every((f) => f.type === 'delta')).toBe(true);
    expect(resumed.frames.every((f) => f.type !== 'error' && f.cursor > cursor)).toBe(true);
    expect(resumed.state).toEqual(watcher.state);
    await Promise.all([watcher.close(), resumed.close()]);
  });

  it('refuses a cursor ahead of the log explicitly', async () => {
    const c = await connect('s-resume', { after: 999_999_999 });
    await c.waitFor('close', (x) => x.closeCode !== null);
    expect(c.errors()[0]).toEqual(expect.objectContaining({ code: 'cursor_out_of_range' }));
  });
});

describe('issue 13 and 11 on the transport wire', () => {
  it('a failed turn sets state.error; the next turn start clears it (no key: the spec types it as an optional string), and a fresh snapshot agrees (issues 13 and 27)', async () => {
    const c = await connect('s-error-clears');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'fail with auth' }]);
    await c.waitFor('the failure', (x) => x.state?.status === 'error');
    expect(typeof c.state?.error).toBe('string');
    c.send([{ type: 'submit', prompt: 'hello again' }]);
    await c.waitFor('the next turn to end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    expect(c.state && Object.hasOwn(c.state, 'error')).toBe(false);
    const fresh = await connect('s-error-clears');
    await fresh.waitFor('snapshot', (x) => x.state !== null);
    expect(fresh.state).toEqual(c.state);
    await Promise.all([c.close(), fresh.close()]);
  });

  it('error frames carry only the documented wire codes, never raw domain codes (issue 13, "Also")', async () => {
    const c = await connect('s-busy');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'long answer 2000' }]);
    await c.waitFor('the turn to run', (x) => x.state?.status === 'running');
    c.send([
      { type: 'submit', prompt: 'me too', busyPolicy: 'reject' },
      { type: 'approve', approvalId: 'no-such-approval' },
    ]);
    await c.waitFor('two errors', (x) => x.errors().length >= 2);
    expect(c.errors().map((e) => e.code)).toEqual(['session_busy', 'approval_not_found']);
    for (const e of c.errors()) expect(WIRE_ERROR_CODE_LIST).toContain(e.code);
    // Stop the long turn: later tests count every event in the log.
    c.send([{ type: 'cancel' }]);
    await c.waitFor('the turn to stop', (x) => x.state?.status === 'idle');
    await c.close();
  });

  it(`refuses a frame of more than ${MAX_COMMANDS_PER_MESSAGE} commands whole: one invalid_message, no turn (issue 11, defect 5)`, async () => {
    const c = await connect('s-amplify');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send(Array.from({ length: 1000 }, (_, i) => ({ type: 'submit', prompt: `turn ${i}` })));
    await c.waitFor('an error', (x) => x.errors().length === 1);
    expect(c.errors()[0]).toEqual(expect.objectContaining({ code: 'invalid_message' }));
    await new Promise((r) => setTimeout(r, 300));
    expect(await stack.events(tenant.tenantId, 's-amplify')).toEqual([]);
    expect(c.closeCode).toBeNull();
    await c.close();
  });

  it('a reused submit.id: the same prompt is idempotent, another prompt is refused (issue 11, defect 9)', async () => {
    const c = await connect('s-reuse');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'hello', id: 'turn-1' }]);
    await c.waitFor('the turn to end', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    const events = (await stack.events(tenant.tenantId, 's-reuse')).length;
    c.send([{ type: 'submit', prompt: 'hello', id: 'turn-1' }]);
    c.send([{ type: 'submit', prompt: 'something else', id: 'turn-1' }]);
    await c.waitFor('an error', (x) => x.errors().length === 1);
    expect(c.errors()[0]).toEqual(expect.objectContaining({ code: 'invalid_command', message: expect.stringContaining('different prompt') }));
    expect(await stack.events(tenant.tenantId, 's-reuse')).toHaveLength(events);
    await c.close();
  });
});

describe('tenancy', () => {
  it("tenant B gets the same answer for A's session as for one that does not exist", async () => {
    await (await runTurn('s-private', 'hello there')).close();
    const other = await stack.createTenant('other');
    const spy = await TransportTestClient.connect(stack.url, other.apiKey, { session: 's-private' });
    const nobody = await TransportTestClient.connect(stack.url, other.apiKey, { session: 's-does-not-exist' });
    await spy.waitFor('snapshot', (x) => x.state !== null);
    await nobody.waitFor('snapshot', (x) => x.state !== null);
    expect(spy.frames[0]).toEqual({ ...nobody.frames[0] });
    spy.send([{ type: 'cancel' }]);
    nobody.send([{ type: 'cancel' }]);
    await spy.waitFor('an error', (x) => x.errors().length > 0);
    await nobody.waitFor('an error', (x) => x.errors().length > 0);
    const anonymised = (c: TransportTestClient) => c.errors().map((e) => ({ ...e, message: e.message.replace(/s-private|s-does-not-exist/, 'ID') }));
    expect(anonymised(spy)).toEqual(anonymised(nobody));
    expect(spy.errors()[0]).toEqual(expect.objectContaining({ code: 'session_not_found' }));
    const ownEvents = await stack.events(tenant.tenantId, 's-private');
    expect(ownEvents.filter((e) => e.type === 'TurnCancelled')).toHaveLength(0);
    await Promise.all([spy.close(), nobody.close()]);
  });
});

describe('bad input', () => {
  it('non-JSON, unknown command and malformed frames get error frames; the socket stays open; nothing is appended', async () => {
    // This socket's session only: turns of earlier tests may still be writing to theirs.
    const c = await connect('s-bad');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.sendRaw('{not json');
    c.sendRaw(JSON.stringify({ type: 'commands', commands: [{ type: 'explode' }] }));
    c.sendRaw(JSON.stringify({ type: 'commands', commands: [{ type: 'submit', prompt: '   ' }] }));
    c.sendRaw(JSON.stringify({ hello: 'world' }));
    await c.waitFor('four errors', (x) => x.errors().length === 4);
    expect(c.errors().map((e) => e.code)).toEqual(['invalid_json', 'unknown_command', 'invalid_message', 'invalid_message']);
    expect(c.closeCode).toBeNull();
    expect(await stack.events(tenant.tenantId, 's-bad')).toEqual([]);
    await c.close();
  });

  it('an oversized frame closes the socket with 1009 (message too big)', async () => {
    const c = await connect('s-big');
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.sendRaw(JSON.stringify({ type: 'commands', commands: [{ type: 'submit', prompt: 'x'.repeat(2 * 1024 * 1024) }] }));
    await c.waitFor('close', (x) => x.closeCode !== null);
    expect(c.closeCode).toBe(1009);
  });

  it('no key, a bad key, a revoked key: 401 problem+json at the upgrade', async () => {
    const extra = await stack.createTenant('revoked');
    await stack.revokeKey(extra.keyPrefix);
    for (const key of [null, 'hub_nope', extra.apiKey]) {
      const err = await TransportTestClient.connect(stack.url, key, { session: 'x' }).then(
        () => null,
        (e: { status: number; body: string; headers: Record<string, string> }) => e,
      );
      expect(err?.status).toBe(401);
      expect(err?.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(err?.body ?? '{}')).toEqual(expect.objectContaining({ status: 401, code: 'UNAUTHENTICATED' }));
    }
  });
});
