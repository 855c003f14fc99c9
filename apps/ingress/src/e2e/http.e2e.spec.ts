import { HubStack, TransportTestClient, freeListenPort } from '@hub/testing';

// HTTP edge against real processes: API-key auth (401 problem+json), tenancy on every read,
// the audit export, answering approvals over HTTP, correlation and trace context reaching the
// events, busy policies, and health.

jest.setTimeout(120_000);

let stack: HubStack;
let a: { tenantId: string; apiKey: string; keyPrefix: string };
let b: { tenantId: string; apiKey: string; keyPrefix: string };
let healthPort: number;

beforeAll(async () => {
  healthPort = await freeListenPort();
  stack = await HubStack.start({ label: 'http', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '5', HUB_WORKER_HEALTH_PORT: String(healthPort) } });
  a = await stack.createTenant('a');
  b = await stack.createTenant('b');
});
afterAll(() => stack?.stop());

const get = (path: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}${path}`, { headers: { ...headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) } });

async function turn(key: string, session: string, prompt: string, headers: Record<string, string> = {}) {
  const c = await TransportTestClient.connect(stack.url, key, { session }, headers);
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the answer', (x) => x.state?.messages[before + 1]?.status === 'complete' && x.state.status === 'idle');
  return c;
}

describe('authentication', () => {
  it('no key, a malformed key, an unknown key and a revoked key get 401 problem+json', async () => {
    const revoked = await stack.createTenant('gone');
    await stack.revokeKey(revoked.keyPrefix);
    const fake = `${a.keyPrefix}_${'x'.repeat(43)}`;
    for (const key of [undefined, 'not-a-key', fake, revoked.apiKey]) {
      const res = await get('/v1/sessions', key);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toEqual(expect.objectContaining({ status: 401, code: 'UNAUTHENTICATED', type: 'urn:hub:error:unauthenticated' }));
    }
    expect((await get('/v1/sessions', a.apiKey)).status).toBe(200);
  });

  it('health needs no key and reports Postgres and Redis', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(
      expect.objectContaining({
        status: 'ok',
        checks: expect.objectContaining({ postgres: expect.objectContaining({ ok: true }), redis: expect.objectContaining({ ok: true }) }),
      }),
    );
  });

  it("a worker's health proves it can dequeue", async () => {
    const res = await fetch(`http://127.0.0.1:${healthPort}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expect.objectContaining({ status: 'ok', checks: expect.objectContaining({ dequeue: { ok: true } }) }));
  });
});

describe('tenancy and audit', () => {
  it("lists and exports only the key's own sessions; another tenant's looks like none", async () => {
    await (await turn(a.apiKey, 'a-private', 'hello')).close();
    const listA = (await (await get('/v1/sessions', a.apiKey)).json()) as { sessions: { sessionId: string }[] };
    expect(listA.sessions.map((s) => s.sessionId)).toContain('a-private');
    const listB = (await (await get('/v1/sessions', b.apiKey)).json()) as { sessions: { sessionId: string }[] };
    expect(listB.sessions.map((s) => s.sessionId)).not.toContain('a-private');
    const stolen = await get('/v1/sessions/a-private/events', b.apiKey);
    const missing = await get('/v1/sessions/nope/events', b.apiKey);
    expect(stolen.status).toBe(404);
    expect(missing.status).toBe(404);
    type Problem = { detail: string; correlationId?: string };
    const strip = (j: Problem) => ({ ...j, detail: j.detail.replace(/a-private|nope/, 'ID'), correlationId: undefined });
    expect(strip((await stolen.json()) as Problem)).toEqual(strip((await missing.json()) as Problem));
    const own = (await (await get('/v1/sessions/a-private/events', a.apiKey)).json()) as { events: { tenantId: string; type: string }[] };
    expect(own.events.every((e) => e.tenantId === a.tenantId)).toBe(true);
    expect(own.events.map((e) => e.type)).toEqual(expect.arrayContaining(['SessionOpened', 'TurnRequested', 'TurnCompleted']));
  });

  it('puts X-Correlation-ID and the caller trace on every event of the turn, worker events included', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const c = await turn(a.apiKey, 'a-traced', 'read notes.txt', { 'X-Correlation-ID': 'corr-e2e-1', traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    await c.close();
    const { events } = (await (await get('/v1/sessions/a-traced/events', a.apiKey)).json()) as {
      events: { type: string; metadata: { correlationId: string; traceparent?: string; actor?: { type: string } } }[];
    };
    expect(events.length).toBeGreaterThan(8);
    for (const e of events) {
      expect(e.metadata.correlationId).toBe('corr-e2e-1');
      expect(e.metadata.traceparent).toContain(traceId);
    }
    expect(events.some((e) => e.metadata.actor?.type === 'worker')).toBe(true);
  });

  it('the state endpoint folds the log to what a transport client assembled', async () => {
    const c = await turn(a.apiKey, 'a-state', 'calculate 6 * 7');
    const body = (await (await get('/v1/sessions/a-state/state', a.apiKey)).json()) as { state: unknown; cursor: number };
    expect(body.state).toEqual(c.state);
    await c.close();
  });
});

describe('approvals over HTTP and busy policies', () => {
  it('an approval raised on the socket can be answered over HTTP; the socket sees it resolved', async () => {
    const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'a-inbox' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'write "x" to x.txt' }]);
    await c.waitFor('approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const id = c.lastAssistant()?.toolCalls?.[0]?.approval?.id;
    const wrongTenant = await fetch(`${stack.url}/v1/sessions/a-inbox/approvals/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${b.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(wrongTenant.status).toBe(404);
    const res = await fetch(`${stack.url}/v1/sessions/a-inbox/approvals/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(res.status).toBe(200);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    expect(c.lastAssistant()?.toolCalls?.[0]?.approval?.status).toBe('approved');
    const again = await fetch(`${stack.url}/v1/sessions/a-inbox/approvals/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'denied' }),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual(expect.objectContaining({ code: 'APPROVAL_ALREADY_RESOLVED' }));
    await c.close();
  });

  it('reject refuses a second submit while a turn runs and appends nothing; interrupt cancels the running one', async () => {
    const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'a-busy' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'long answer 400' }]);
    await c.waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 20);
    const before = (await stack.events(a.tenantId, 'a-busy')).length;
    c.send([{ type: 'submit', prompt: 'hello', busyPolicy: 'reject' }]);
    await c.waitFor('a session_busy error', (x) => x.errors().some((e) => e.code === 'session_busy'));
    const afterReject = await stack.events(a.tenantId, 'a-busy');
    expect(afterReject.filter((e) => e.type === 'TurnRequested')).toHaveLength(1);
    expect(afterReject.length).toBeGreaterThanOrEqual(before);
    c.send([{ type: 'submit', prompt: 'calculate 1 + 1', busyPolicy: 'interrupt' }]);
    await c.waitFor('the second answer', (x) => x.state?.status === 'idle' && (x.lastAssistant()?.content ?? '').includes('The result is 2'));
    const events = await stack.events(a.tenantId, 'a-busy');
    expect(events.find((e) => e.type === 'TurnCancelled')?.data).toEqual(expect.objectContaining({ reason: 'interrupted' }));
    expect(c.state?.messages.filter((m) => m.role === 'assistant').map((m) => m.stopReason)).toEqual(['cancelled', undefined]);
    await c.close();
  });
});
