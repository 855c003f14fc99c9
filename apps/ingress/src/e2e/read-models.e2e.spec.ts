import { HubStack, openSseFeed, TransportTestClient } from '@hub/testing';

// Read models against real processes: the worker's projections feed GET /v1/sessions,
// /v1/sessions/ID/turns, /v1/approvals and the live approval feed; every list is the key's
// tenant only; bad input is a 400 problem+json naming the field; the CLI reports lag.

jest.setTimeout(120_000);

type Tenant = { tenantId: string; apiKey: string; keyPrefix: string };
let stack: HubStack;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'readmodels', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '2' } });
  a = await stack.createTenant('a');
  b = await stack.createTenant('b');
});
afterAll(() => stack?.stop());

const get = (path: string, key: string) => fetch(`${stack.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
const json = async <T>(path: string, key: string): Promise<T> => {
  const res = await get(path, key);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function turn(key: string, session: string, prompt: string): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, key, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the answer', (x) => x.state?.messages[before + 1]?.status === 'complete' && x.state.status === 'idle');
  await c.close();
}

/** Reads SSE frames of a feed (the approvals', or `path`) as they arrive. */
async function openFeed(key: string, query = '', path = '/v1/approvals/stream') {
  const feed = await openSseFeed(`${stack.url}${path}${query}`, key);
  expect(feed.status).toBe(200);
  expect(feed.contentType).toMatch(/^text\/event-stream/);
  return feed;
}

describe('read models over HTTP', () => {
  it('lists sessions and turns from the projections, newest first, page by page', async () => {
    await turn(a.apiKey, 'rm-one', 'hello there, this is the first prompt');
    await turn(a.apiKey, 'rm-one', 'calculate 2 + 2');
    await turn(a.apiKey, 'rm-two', 'hello');
    const { sessions } = await until('both sessions projected', async () => {
      const body = await json<{ sessions: { sessionId: string; turnCount: number; status: string }[] }>('/v1/sessions', a.apiKey);
      return (
        body.sessions.find((s) => s.sessionId === 'rm-one')?.turnCount === 2 && body.sessions.find((s) => s.sessionId === 'rm-two')?.status === 'idle' && body
      );
    });
    expect(sessions.map((s) => s.sessionId)).toEqual(['rm-two', 'rm-one']);
    expect(sessions[1]).toEqual(
      expect.objectContaining({ status: 'idle', openedVia: 'transport', title: 'hello there, this is the first prompt', pendingApprovals: 0 }),
    );

    const first = await json<{ sessions: { sessionId: string }[]; nextCursor: string }>('/v1/sessions?limit=1', a.apiKey);
    expect(first.sessions.map((s) => s.sessionId)).toEqual(['rm-two']);
    const second = await json<{ sessions: { sessionId: string }[]; nextCursor: string | null }>(`/v1/sessions?limit=1&cursor=${first.nextCursor}`, a.apiKey);
    expect(second.sessions.map((s) => s.sessionId)).toEqual(['rm-one']);
    expect(second.nextCursor).toBeNull();

    const turns = await until('both turns ended', async () => {
      const body = await json<{ turns: { status: string; modelCalls: number; toolCalls: number; usage: { totalTokens: number }; provider: string }[] }>(
        '/v1/sessions/rm-one/turns',
        a.apiKey,
      );
      return body.turns.length === 2 && body.turns.every((t) => t.status === 'completed') && body.turns;
    });
    expect(turns[1]).toEqual(expect.objectContaining({ toolCalls: 1, modelCalls: 2, provider: 'offline' }));
    expect(turns[1].usage.totalTokens).toBeGreaterThan(0);
  });

  it('an approval answered over HTTP leaves the pending inbox and the live feed says so, within one projection lag', async () => {
    const feed = await openFeed(a.apiKey);
    const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'rm-inbox' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'write "x" to x.txt' }]);
    await c.waitFor('approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const id = c.lastAssistant()?.toolCalls?.[0]?.approval?.id as string;
    const pending = await until('pending in the inbox', async () => {
      const body = await json<{ approvals: { approvalId: string; toolName: string; riskTier: string; requestedVia: string; arguments: unknown }[] }>(
        '/v1/approvals?status=pending',
        a.apiKey,
      );
      return body.approvals.find((x) => x.approvalId === id);
    });
    expect(pending).toEqual(expect.objectContaining({ toolName: 'write_file', requestedVia: 'transport' }));
    await until('the feed shows it pending', async () =>
      feed.frames.some((f) => f.event === 'approval' && f.data.approvalId === id && f.data.status === 'pending'),
    );

    const res = await fetch(`${stack.url}/v1/sessions/rm-inbox/approvals/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved', reason: 'looks fine' }),
    });
    expect(res.status).toBe(200);
    const answeredAt = Date.now();
    await until(
      'gone from pending',
      async () => !(await json<{ approvals: { approvalId: string }[] }>('/v1/approvals?status=pending', a.apiKey)).approvals.some((x) => x.approvalId === id),
      2000,
    );
    expect(Date.now() - answeredAt).toBeLessThan(2000);
    const resolved = (await json<{ approvals: { approvalId: string; resolution: unknown }[] }>('/v1/approvals?status=resolved', a.apiKey)).approvals.find(
      (x) => x.approvalId === id,
    );
    expect(resolved?.resolution).toEqual(
      expect.objectContaining({ decision: 'approved', via: 'internal', reason: 'looks fine', by: expect.objectContaining({ type: 'api_key' }) }),
    );
    await until('the feed shows it resolved', async () => feed.frames.some((f) => f.data.approvalId === id && f.data.status === 'resolved'), 2000);
    feed.close();
    await c.close();
  });

  it('the sessions feed sends each session as it moves, resumes after the last id, and keeps a client key to its own sessions', async () => {
    const feed = await openFeed(a.apiKey, '', '/v1/sessions/stream');
    await until('ready', async () => feed.frames[0]?.event === 'ready');
    const start = feed.frames[0].data.position as number;
    const clientKey = (await (
      await fetch(`${stack.url}/v1/admin/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'feed-client', role: 'client' }),
      })
    ).json()) as { apiKey: string };
    const clientFeed = await openFeed(clientKey.apiKey, '', '/v1/sessions/stream');
    const feedB = await openFeed(b.apiKey, '', '/v1/sessions/stream');

    await turn(a.apiKey, 'rm-live', 'hello');
    await turn(clientKey.apiKey, 'rm-client', 'hello');
    const sessions = (f: typeof feed, id: string) => f.frames.filter((x) => x.event === 'session' && x.data.sessionId === id);
    // Opened, then running, then idle with its turn counted: the list row as it moves.
    const done = await until('rm-live idle with its turn', async () =>
      sessions(feed, 'rm-live').find((x) => x.data.status === 'idle' && x.data.turnCount === 1),
    );
    expect(done.data).toEqual(expect.objectContaining({ openedVia: 'transport', title: 'hello', pendingApprovals: 0 }));
    expect(done.id).toBe(done.data.position);
    await until('rm-client idle', async () => sessions(feed, 'rm-client').some((x) => x.data.status === 'idle'));
    const ids = feed.frames.flatMap((x) => (x.id === undefined ? [] : [x.id]));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids[0]).toBeGreaterThan(start);

    // The list agrees with the feed's last word on each session.
    const list = await json<{ sessions: { sessionId: string; position: number; status: string }[] }>('/v1/sessions', a.apiKey);
    expect(list.sessions.find((x) => x.sessionId === 'rm-live')).toEqual(
      expect.objectContaining({ position: sessions(feed, 'rm-live').at(-1)?.data.position, status: 'idle' }),
    );

    // A client key sees the session it opened, never another key's; another tenant sees nothing.
    await until('the client key sees its session', async () => sessions(clientFeed, 'rm-client').some((x) => x.data.status === 'idle'));
    expect(sessions(clientFeed, 'rm-live')).toEqual([]);
    expect(feedB.frames.filter((x) => x.event === 'session')).toEqual([]);

    // Resume: after the first id, each session's latest row follows again, all after that id.
    const resumed = await openFeed(a.apiKey, `?after=${ids[0]}`, '/v1/sessions/stream');
    await until('resumed up to rm-client idle', async () => sessions(resumed, 'rm-client').some((x) => x.data.status === 'idle'));
    expect(resumed.frames[0]).toEqual({ event: 'ready', data: { position: ids[0] } });
    expect(sessions(resumed, 'rm-live').at(-1)?.data).toEqual(expect.objectContaining({ status: 'idle', turnCount: 1 }));
    expect(resumed.frames.slice(1).every((x) => (x.id ?? 0) > ids[0])).toBe(true);
    for (const f of [feed, clientFeed, feedB, resumed]) f.close();
  });

  it("ends a revoked key's feeds with event: error UNAUTHENTICATED, and refuses it a new one", async () => {
    const made = (await (
      await fetch(`${stack.url}/v1/admin/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'soon-revoked', role: 'viewer' }),
      })
    ).json()) as { apiKey: string; prefix: string };
    const feeds = [await openFeed(made.apiKey), await openFeed(made.apiKey, '', '/v1/sessions/stream')];
    await until('both feeds ready', async () => feeds.every((f) => f.frames.some((x) => x.event === 'ready')));
    const res = await fetch(`${stack.url}/v1/admin/keys/${made.prefix}`, { method: 'DELETE', headers: { Authorization: `Bearer ${a.apiKey}` } });
    expect(res.status).toBe(200);
    // NOTIFY hub_keys ends them at once; the periodic re-check (HUB_KEY_RECHECK_MS) is the backstop.
    await until('both feeds ended', async () => feeds.every((f) => f.state.ended), 5_000);
    for (const f of feeds) expect(f.frames.at(-1)).toEqual({ event: 'error', data: expect.objectContaining({ code: 'UNAUTHENTICATED' }) });
    expect((await get('/v1/sessions/stream', made.apiKey)).status).toBe(401);
  });

  it("never shows one tenant's sessions, turns or approvals to another", async () => {
    await turn(a.apiKey, 'rm-secret', 'hello');
    await until('projected', async () =>
      (await json<{ sessions: { sessionId: string }[] }>('/v1/sessions', a.apiKey)).sessions.some((s) => s.sessionId === 'rm-secret'),
    );
    const feedB = await openFeed(b.apiKey);
    const listB = await json<{ sessions: unknown[] }>('/v1/sessions', b.apiKey);
    expect(listB.sessions).toEqual([]);
    for (const status of ['pending', 'resolved'])
      expect((await json<{ approvals: unknown[] }>(`/v1/approvals?status=${status}`, b.apiKey)).approvals).toEqual([]);
    const stolen = await get('/v1/sessions/rm-secret/turns', b.apiKey);
    const missing = await get('/v1/sessions/rm-nope/turns', b.apiKey);
    expect([stolen.status, missing.status]).toEqual([404, 404]);
    // A cursor of A's list used by B pages B's own (empty) list: positions carry no tenant.
    const pageA = await json<{ nextCursor: string }>('/v1/sessions?limit=1', a.apiKey);
    expect((await json<{ sessions: unknown[] }>(`/v1/sessions?cursor=${pageA.nextCursor}`, b.apiKey)).sessions).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(feedB.frames.filter((f) => f.event === 'approval')).toEqual([]);
    feedB.close();
  });

  it('answers bad input with 400 problem+json naming the field', async () => {
    const approvalsCursor = Buffer.from(JSON.stringify({ v: 1, k: 'approvals', p: 5 })).toString('base64url');
    const cases: [string, string][] = [
      ['/v1/sessions?limit=0', 'limit'],
      ['/v1/sessions?limit=201', 'limit'],
      ['/v1/sessions?limit=-1', 'limit'],
      ['/v1/sessions?limit=ten', 'limit'],
      ['/v1/sessions?cursor=not-ours', 'cursor'],
      [`/v1/sessions?cursor=${approvalsCursor}`, 'cursor'],
      ['/v1/sessions?status=sleeping', 'status'],
      ['/v1/sessions?protocol=smtp', 'protocol'],
      ['/v1/sessions?limit=1&limit=2', 'limit'],
      ['/v1/sessions?colour=red', 'colour'],
      ['/v1/approvals?status=maybe', 'status'],
      ['/v1/approvals?sessionId=%20', 'sessionId'],
      ['/v1/sessions/rm-one/turns?status=lost', 'status'],
      ['/v1/approvals/stream?after=x', 'after'],
      ['/v1/sessions/stream?after=-1', 'after'],
      ['/v1/sessions/stream?status=idle', 'status'],
    ];
    for (const [path, field] of cases) {
      const res = await get(path, a.apiKey);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 400, expect.stringMatching(/^application\/problem\+json/)]);
      const body = (await res.json()) as { code: string; detail: string };
      expect([path, body.code, body.detail.split(':')[0]]).toEqual([path, 'INVALID_COMMAND', field]);
    }
    expect((await get('/v1/approvals/stream', 'not-a-key')).status).toBe(401);
    expect((await get('/v1/sessions/stream', 'not-a-key')).status).toBe(401);
  });

  it('bin/hub projections status reports each checkpoint and its lag', async () => {
    const res = await stack.cli(['projections', 'status']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; lagEvents: number; active: boolean; position: number });
    expect(rows.map((r) => r.name).sort()).toEqual(['approvals', 'sessions', 'turns', 'usage']);
    for (const r of rows) expect(r).toEqual(expect.objectContaining({ active: true, lagEvents: expect.any(Number), lagMs: expect.any(Number) }));
    // The hub's own admin events and protocol facts (tenants and keys made above) are known types:
    // only a type written by a newer hub is counted as unknown.
    for (const r of rows) expect([r.name, (r as { skippedUnknown?: number }).skippedUnknown]).toEqual([r.name, 0]);
  });
});
