import { applyOps, type HarnessState } from '@hub/domain';
import { HubStack, OpenEnvWs, TransportTestClient, hubJson, type TransportFrame, type WireJson } from '@hub/testing';

// Watching a past run (issue 15, "Watch a past run"): `?replay=1&speed=N` on /v1/transport and
// on OpenEnv's /harness replays a finished session from the log at its recorded pace (or N times
// faster) without running anything, against real ingress and worker processes on real Postgres
// and Redis.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };
const SESSION = 's-past';

beforeAll(async () => {
  // 10 ms per streamed word: 'long answer 150' records its text over about 1.5 s.
  stack = await HubStack.start({ label: 'replay', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '10' } });
  tenant = await stack.createTenant('acme');
  const c = await connect(SESSION);
  await c.waitFor('snapshot', (x) => x.state !== null);
  for (const [i, prompt] of ['read notes.txt', 'long answer 150'].entries()) {
    c.send([{ type: 'submit', prompt }]);
    await c.waitFor(
      `turn ${i + 1} to finish`,
      (x) => x.state?.status === 'idle' && x.state.messages.length === 2 * (i + 1) && x.lastAssistant()?.status === 'complete',
    );
  }
  await c.close();
});
afterAll(() => stack?.stop());

function connect(session: string, extra: Record<string, string | number> = {}): Promise<TransportTestClient> {
  return TransportTestClient.connect(stack.url, tenant.apiKey, { session, ...extra });
}

/** A replay watched to its end: the client, how its socket closed, and how long it took. */
async function replay(session: string, query: Record<string, string | number>): Promise<{ c: TransportTestClient; code: number; reason: string; ms: number }> {
  const started = performance.now();
  const c = await connect(session, { replay: 1, ...query });
  // The server reads the log before its first frame, so the close cannot come in the upgrade's read.
  let reason = '';
  c.ws.once('close', (_code, r) => (reason = r.toString()));
  await c.waitFor('the replay to end', (x) => x.closeCode !== null, 60_000);
  return { c, code: c.closeCode ?? 0, reason, ms: performance.now() - started };
}

async function liveSnapshot(session: string): Promise<TransportTestClient> {
  const live = await connect(session);
  await live.waitFor('snapshot', (x) => x.state !== null);
  await live.close();
  return live;
}

const cursorOf = (f: TransportFrame) => (f.type === 'error' ? undefined : f.cursor);

describe('?replay=1 on /v1/transport', () => {
  it('sends an empty snapshot at cursor 0, then the recorded deltas in order, ends where a live snapshot is, and closes 1000', async () => {
    const before = await stack.countAllEvents();
    const { c, code, reason } = await replay(SESSION, { speed: 50 });
    const live = await liveSnapshot(SESSION);
    const events = await stack.events(tenant.tenantId, SESSION);

    expect(code).toBe(1000);
    expect(reason).toBe('replay complete');
    expect(c.frames[0]).toEqual({ type: 'state', state: expect.objectContaining({ status: 'idle', messages: [] }), cursor: 0 });
    const deltas = c.frames.slice(1);
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.every((f) => f.type === 'delta')).toBe(true);
    const cursors = deltas.map(cursorOf) as number[];
    expect(cursors[0]).toBeGreaterThan(0);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
    expect(cursors.at(-1)).toBe(events.at(-1)?.globalPosition);
    expect(c.state).toEqual(live.state);
    expect(c.lastAssistant()?.content).toContain('word150');
    // watching ran nothing
    expect(await stack.countAllEvents()).toBe(before);
  });

  it('paces by the recorded times: speed 1 takes about the recorded span, speed 100 a small part of it', async () => {
    const events = await stack.events(tenant.tenantId, SESSION);
    const spanMs = Date.parse(events.at(-1)?.createdAt ?? '') - Date.parse(events[0].createdAt);
    expect(spanMs).toBeGreaterThan(800); // the fixture session is slow enough to measure
    const slow = await replay(SESSION, { speed: 1 });
    const fast = await replay(SESSION, { speed: 100 });
    expect(slow.code).toBe(1000);
    expect(fast.code).toBe(1000);
    expect(slow.ms).toBeGreaterThanOrEqual(spanMs * 0.5);
    expect(fast.ms).toBeLessThan(slow.ms / 2);
    expect(fast.c.state).toEqual(slow.c.state);
  });

  it('refuses commands during a replay with an error frame and dispatches nothing', async () => {
    const before = await stack.countAllEvents();
    const countBefore = (await stack.events(tenant.tenantId, SESSION)).length;
    const c = await connect(SESSION, { replay: 1, speed: 2 });
    const closed = new Promise<number>((r) => c.ws.once('close', (code) => r(code)));
    c.send([{ type: 'submit', prompt: 'run me anyway' }]);
    c.send([{ type: 'cancel' }]);
    await c.waitFor('two refusals', (x) => x.errors().length === 2);
    expect(c.errors()).toEqual([
      expect.objectContaining({ code: 'forbidden', message: expect.stringContaining('read-only') }),
      expect.objectContaining({ code: 'forbidden' }),
    ]);
    // the replay goes on to its end after a refusal
    expect(await closed).toBe(1000);
    expect(c.lastAssistant()?.content).toContain('word150');
    expect((await stack.events(tenant.tenantId, SESSION)).length).toBe(countBefore);
    expect(await stack.countAllEvents()).toBe(before);
  });

  it('with ?after=CURSOR starts from a snapshot at the cursor, then paces the rest', async () => {
    const events = await stack.events(tenant.tenantId, SESSION);
    const firstTurnEnd = events.find((e) => e.type === 'TurnCompleted');
    expect(firstTurnEnd).toBeDefined();
    const cursor = firstTurnEnd?.globalPosition ?? 0;
    const full = await replay(SESSION, { speed: 1000 });
    let stateAtCursor: HarnessState | null = null;
    for (const f of full.c.frames) {
      if (f.type === 'state' && f.cursor <= cursor) stateAtCursor = f.state;
      if (f.type === 'delta' && f.cursor <= cursor) stateAtCursor = applyOps(stateAtCursor ?? { status: 'idle', messages: [] }, f.operations);
    }

    const from = await replay(SESSION, { speed: 1000, after: cursor });
    expect(from.code).toBe(1000);
    expect(from.c.frames[0]).toEqual({ type: 'state', state: stateAtCursor, cursor });
    expect(from.c.frames.slice(1).every((f) => f.type === 'delta' && f.cursor > cursor)).toBe(true);
    expect(from.c.state).toEqual(full.c.state);
  });

  it("a session with no events, or another tenant's, replays as an empty snapshot and closes; a cursor ahead of the log is refused", async () => {
    const empty = await replay('s-never-used', {});
    expect(empty.code).toBe(1000);
    expect(empty.c.frames).toEqual([{ type: 'state', state: expect.objectContaining({ status: 'idle', messages: [] }), cursor: 0 }]);

    // another tenant's session is one it does not have
    const other = await stack.createTenant('other');
    const foreign = await TransportTestClient.connect(stack.url, other.apiKey, { session: SESSION, replay: 1 });
    await foreign.waitFor('the replay to end', (x) => x.closeCode !== null);
    expect(foreign.closeCode).toBe(1000);
    expect(foreign.frames).toEqual(empty.c.frames);

    const ahead = await replay(SESSION, { after: 999_999_999 });
    expect(ahead.code).toBe(1008);
    expect(ahead.c.errors()).toEqual([expect.objectContaining({ code: 'cursor_out_of_range' })]);
  });

  it.each([
    ['speed=0', { replay: 1, speed: 0 }],
    ['a negative speed', { replay: 1, speed: -2 }],
    ['speed over 1000', { replay: 1, speed: 1001 }],
    ['speed=abc', { replay: 1, speed: 'abc' }],
    ['an empty speed', { replay: 1, speed: '' }],
    ['replay=yes', { replay: 'yes' }],
    ['speed without replay', { speed: 5 }],
  ])('refuses %s with invalid_request and close 1008', async (_name, query: Record<string, string | number>) => {
    const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: SESSION, ...query });
    await c.waitFor('close', (x) => x.closeCode !== null);
    expect(c.closeCode).toBe(1008);
    expect(c.errors()).toEqual([expect.objectContaining({ code: 'invalid_request' })]);
    expect(c.frames.filter((f) => f.type !== 'error')).toEqual([]);
  });
});

describe('?replay=1 on OpenEnv /harness', () => {
  const EPISODE = 'ep-replayed';
  const http = (method: string, route: string, body?: unknown) => hubJson(method, `${stack.url}/v1/openenv/${route}`, tenant.apiKey, body);
  const open = (query: string) => OpenEnvWs.open(stack.url, `/v1/openenv/replaycalc/harness?${query}`, tenant.apiKey);
  const ended = async (w: OpenEnvWs) => {
    await w.until('the socket to close', () => w.closeCode !== null, 60_000);
    return w;
  };

  beforeAll(async () => {
    expect((await http('PUT', 'replaycalc', {})).status).toBe(200);
    expect((await http('POST', 'replaycalc/reset', { episode_id: EPISODE })).status).toBe(200);
    for (const message of ['calculate 6 * 7', 'long answer 60']) {
      const r = await http('POST', 'replaycalc/step', { action: { message }, timeout_s: 60 });
      expect(r.body['observation']['status']).toBe('completed');
    }
  });

  it("sends the episode's HarnessEvents exactly as a live watcher got them, then closes 1000; nothing runs", async () => {
    const before = await stack.countAllEvents();
    const live = await open(`episode_id=${EPISODE}`);
    await live.until('both turns', () => live.frames.filter((f) => f['type'] === 'turn_complete').length === 2);
    live.close();
    const replayed = await ended(await open(`episode_id=${EPISODE}&replay=1&speed=200`));
    expect(replayed.closeCode).toBe(1000);
    expect(replayed.frames).toEqual(live.frames);
    expect(replayed.frames[0]['data']['episode']).toMatchObject({ episode_id: EPISODE, env: 'replaycalc' });
    const cursors = replayed.frames.map((f) => f['cursor'] as number);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
    expect(await stack.countAllEvents()).toBe(before);
  });

  it('from ?after=CURSOR sends only the later events', async () => {
    const all = await ended(await open(`episode_id=${EPISODE}&replay=1&speed=1000`));
    const cursor = all.frames.find((f) => f['type'] === 'turn_complete')?.['cursor'] as number;
    const rest = await ended(await open(`episode_id=${EPISODE}&replay=1&speed=1000&after=${cursor}`));
    expect(rest.closeCode).toBe(1000);
    const later = all.frames.filter((f) => f['cursor'] > cursor);
    expect(rest.frames.map(({ data, ...f }: WireJson) => ({ ...f, data: { ...data, episode: undefined } }))).toEqual(
      later.map(({ data, ...f }: WireJson) => ({ ...f, data: { ...data, episode: undefined } })),
    );
    expect(rest.frames[0]['data']['episode']).toMatchObject({ episode_id: EPISODE });
  });

  it('refuses messages during a replay with a recoverable error event and runs nothing', async () => {
    const before = await stack.countAllEvents();
    const w = await open(`episode_id=${EPISODE}&replay=1&speed=5`);
    w.ws.send('calculate 1 + 1');
    w.ws.send(JSON.stringify({ message: 'and again' }));
    await ended(w);
    expect(w.closeCode).toBe(1000);
    const errors = w.frames.filter((f) => f['type'] === 'error');
    expect(errors).toEqual([0, 1].map(() => expect.objectContaining({ data: { message: expect.stringContaining('read-only'), recoverable: true } })));
    expect(w.frames.filter((f) => f['type'] === 'turn_complete')).toHaveLength(2);
    expect(await stack.countAllEvents()).toBe(before);
  });

  it.each([
    ['no episode_id (it would start one)', 'replay=1'],
    ['speed=0', `episode_id=${EPISODE}&replay=1&speed=0`],
    ['speed=fast', `episode_id=${EPISODE}&replay=1&speed=fast`],
    ['an unknown episode', 'episode_id=nope&replay=1'],
    ['a cursor ahead of the log', `episode_id=${EPISODE}&replay=1&after=999999999`],
  ])('refuses %s with an error event and close 1008, starting nothing', async (_name, query) => {
    const before = await stack.countAllEvents();
    const w = await ended(await open(query));
    expect(w.closeCode).toBe(1008);
    expect(w.frames).toEqual([expect.objectContaining({ type: 'error', data: expect.objectContaining({ recoverable: false }) })]);
    expect(await stack.countAllEvents()).toBe(before);
  });
});
