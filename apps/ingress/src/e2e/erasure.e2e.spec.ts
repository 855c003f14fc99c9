import { HubStack, openSseFeed, TransportTestClient } from '@hub/testing';

// Issue 16: erasure. An admin erases a session: its events, snapshot and read-model rows go, a
// SessionErased tombstone on the tenant's admin stream names who did it and what went, and every
// other chain still verifies. Other roles cannot; a running session is refused until cancelled.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };

const api = (path: string, key = tenant.apiKey, method = 'GET') => fetch(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });

async function session(id: string, prompt = 'read notes.txt'): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the answer', (x) => (x.state?.messages.length ?? 0) >= before + 2 && x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
}

beforeAll(async () => {
  stack = await HubStack.start({ label: 'erasure', workers: 1, workerEnv: { HUB_SNAPSHOT_EVERY: '10' } });
  tenant = await stack.createTenant('erasure');
  await session('keep');
  await session('gone');
  await session('gone', 'calculate 2 + 2');
});
afterAll(() => stack?.stop());

it('an admin erases a session: events, snapshot and read rows go, the tombstone says who and what, other chains verify', async () => {
  const before = await stack.events(tenant.tenantId, 'gone');
  const keep = await stack.events(tenant.tenantId, 'keep');
  // The read model has the session before.
  let listed = 0;
  for (let i = 0; i < 50 && (listed = (await api('/v1/sessions/gone/turns')).status) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  expect(listed).toBe(200);

  const res = await api('/v1/sessions/gone', tenant.apiKey, 'DELETE');
  expect(res.status).toBe(200);
  const body = (await res.json()) as { erased: { streamId: string; events: number; lastHash: string }[] };
  expect(body.erased).toEqual([{ streamId: 'session-gone', events: before.length, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);

  expect(await stack.events(tenant.tenantId, 'gone')).toEqual([]);
  expect(await stack.events(tenant.tenantId, 'keep')).toEqual(keep);
  expect((await api('/v1/sessions/gone/state')).status).toBe(404);
  expect((await api('/v1/sessions/gone/turns')).status).toBe(404);
  const list = (await (await api('/v1/sessions')).json()) as { sessions: { sessionId: string }[] };
  expect(list.sessions.map((s) => s.sessionId)).toEqual(['keep']);
  const db = await stack.query<{ n: string }>(`SELECT count(*)::text AS n FROM session_snapshots WHERE stream_id = 'session-gone'`);
  expect(db[0].n).toBe('0');

  const admin = await stack.streamEvents(tenant.tenantId, 'tenant-admin');
  expect(admin.at(-1)).toEqual(
    expect.objectContaining({
      type: 'SessionErased',
      data: {
        sessionId: 'gone',
        reason: 'request',
        archivedTo: null,
        streams: [{ streamId: 'session-gone', events: before.length, lastHash: body.erased[0].lastHash }],
      },
      metadata: expect.objectContaining({ actor: expect.objectContaining({ type: 'api_key', id: tenant.keyPrefix, role: 'admin' }) }),
    }),
  );
  const verify = await stack.cli(['audit', 'verify', '--tenant', tenant.tenantId]);
  expect(verify.code).toBe(0);

  // Gone is gone: a second erase finds nothing; the id can be used again, from scratch.
  expect((await api('/v1/sessions/gone', tenant.apiKey, 'DELETE')).status).toBe(404);
  await session('gone', 'hello again');
  expect((await stack.events(tenant.tenantId, 'gone'))[0]).toEqual(expect.objectContaining({ type: 'SessionOpened', streamPosition: 1 }));
});

it('only an admin erases, and not while a turn runs', async () => {
  const operator = (await (
    await fetch(`${stack.url}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ops', role: 'operator' }),
    })
  ).json()) as { apiKey: string };
  expect((await api('/v1/sessions/keep', operator.apiKey, 'DELETE')).status).toBe(403);

  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'busy' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'write "x" to a.txt' }]);
  await c.waitFor('the approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
  const refused = await api('/v1/sessions/busy', tenant.apiKey, 'DELETE');
  expect(refused.status).toBe(409);
  expect(((await refused.json()) as { detail: string }).detail).toMatch(/cancel it before erasing/);
  c.send([{ type: 'cancel' }]);
  await c.waitFor('the cancel', (x) => x.state?.status === 'idle');
  await c.close();
  expect((await api('/v1/sessions/busy', tenant.apiKey, 'DELETE')).status).toBe(200);
});

it("an erased id opened again by another client key is that key's on every ingress, not the first opener's", async () => {
  const other = await stack.addIngress();
  const newKey = async (name: string) =>
    (
      (await (
        await fetch(`${stack.url}/v1/admin/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, role: 'client' }),
        })
      ).json()) as { apiKey: string }
    ).apiKey;
  const [first, second] = [await newKey('first-opener'), await newKey('second-opener')];
  const turn = async (url: string, key: string) => {
    const c = await TransportTestClient.connect(url, key, { session: 'reused' });
    await c.waitFor('snapshot or refusal', (x) => x.state !== null || x.errors().length > 0);
    if (c.errors().length > 0) return (await c.close(), c.errors()[0].code);
    c.send([{ type: 'submit', prompt: 'hello' }]);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    await c.close();
    return 'ok';
  };
  // The first client key opens it; the other ingress learns its opener by reading it there.
  expect(await turn(stack.url, first)).toBe('ok');
  expect((await fetch(`${other.url}/v1/sessions/reused/state`, { headers: { authorization: `Bearer ${first}` } })).status).toBe(200);
  expect((await api('/v1/sessions/reused', tenant.apiKey, 'DELETE')).status).toBe(200);
  // Opened again by the second key on the other ingress: it is the second key's there (the other
  // ingress hears of the erasure on the broadcast, within moments; without it, never).
  let opened = await turn(other.url, second);
  for (let i = 0; i < 25 && opened !== 'ok'; i++) opened = (await new Promise((r) => setTimeout(r, 200)), await turn(other.url, second));
  expect(opened).toBe('ok');
  expect((await fetch(`${other.url}/v1/sessions/reused/state`, { headers: { authorization: `Bearer ${first}` } })).status).toBe(404);
});

it("the live sessions list announces an erasure (event: erased, after the session's last row), not to a client key", async () => {
  const feedUrl = `${stack.url}/v1/sessions/stream`;
  const admin = await openSseFeed(feedUrl, tenant.apiKey);
  const clientKey = (
    (await (
      await fetch(`${stack.url}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'feed-client', role: 'client' }),
      })
    ).json()) as { apiKey: string }
  ).apiKey;
  const client = await openSseFeed(feedUrl, clientKey);
  const until = async (what: string, ok: () => boolean) => {
    for (let i = 0; !ok(); i++) {
      if (i > 200) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(admin.frames.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until('both feeds ready', () => admin.frames[0]?.event === 'ready' && client.frames[0]?.event === 'ready');
  const start = admin.frames[0].data.position as number;
  await session('feed-gone', 'hello');
  await until('feed-gone idle on the feed', () =>
    admin.frames.some((f) => f.event === 'session' && f.data.sessionId === 'feed-gone' && f.data.status === 'idle'),
  );

  expect((await api('/v1/sessions/feed-gone', tenant.apiKey, 'DELETE')).status).toBe(200);
  await until('the erasure on the feed', () => admin.frames.some((f) => f.event === 'erased'));
  const tombstone = (await stack.streamEvents(tenant.tenantId, 'tenant-admin')).filter((e) => e.type === 'SessionErased').at(-1) as { globalPosition: number };
  const erased = admin.frames.filter((f) => f.event === 'erased');
  expect(erased).toEqual([
    { event: 'erased', data: { sessionId: 'feed-gone', erasedAt: expect.any(String), position: tombstone.globalPosition }, id: tombstone.globalPosition },
  ]);
  const lastRow = admin.frames.filter((f) => f.event === 'session' && f.data.sessionId === 'feed-gone').at(-1);
  expect(lastRow?.id).toBeLessThan(tombstone.globalPosition);

  // A feed resumed from before the session was opened replays the same: its rows are gone, its erasure is not.
  const resumed = await openSseFeed(`${feedUrl}?after=${start}`, tenant.apiKey);
  await until('the resumed feed reaching the erasure', () => resumed.frames.some((f) => f.event === 'erased'));
  expect(resumed.frames.filter((f) => f.event === 'erased').map((f) => f.data.sessionId)).toEqual(['feed-gone']);
  expect(resumed.frames.some((f) => f.event === 'session' && f.data.sessionId === 'feed-gone')).toBe(false);

  // The client key's feed moves past the tombstone (its own session) without hearing of it.
  const c = await TransportTestClient.connect(stack.url, clientKey, { session: 'client-after' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'hello' }]);
  await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
  await until('the client feed past the tombstone', () => client.frames.some((f) => (f.id ?? 0) > tombstone.globalPosition));
  expect(client.frames.filter((f) => f.event !== 'ready').map((f) => [f.event, f.data.sessionId])).toEqual(
    expect.arrayContaining([['session', 'client-after']]),
  );
  expect(client.frames.some((f) => f.event === 'erased')).toBe(false);
  for (const f of [admin, client, resumed]) f.close();
});
