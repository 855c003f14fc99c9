import { HubStack, TransportTestClient } from '@hub/testing';

// Issue 11, defect 5: `GET /v1/sessions/ID/events` answered the whole log in one body (25.8 MB;
// 60 parallel exports took ingress to 1.44 GB). It is now keyset pages on the stream position,
// and the whole log is a streamed NDJSON export. Against real ingress and worker processes.

jest.setTimeout(120_000);

let stack: HubStack;
let a: { tenantId: string; apiKey: string };
let b: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'export', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1' } });
  a = await stack.createTenant('a');
  b = await stack.createTenant('b');
  const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'exp-1' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  for (const prompt of ['hello', 'read notes.txt', 'hello again']) {
    const before = c.state?.messages.length ?? 0;
    c.send([{ type: 'submit', prompt }]);
    await c.waitFor('the answer', (x) => x.state?.messages[before + 1]?.status === 'complete' && x.state.status === 'idle');
  }
  await c.close();
});
afterAll(() => stack?.stop());

const get = (path: string, key = a.apiKey) => fetch(`${stack.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
type Page = { sessionId: string; events: { streamPosition: number; eventId: string; tenantId: string }[]; next: number | null };

describe('GET /v1/sessions/ID/events', () => {
  it('pages by stream position: after + limit, next and a Link header, until next is null', async () => {
    const all = await stack.events(a.tenantId, 'exp-1');
    expect(all.length).toBeGreaterThan(15);
    const seen: string[] = [];
    let path: string | null = '/v1/sessions/exp-1/events?limit=7';
    let pages = 0;
    while (path) {
      const res = await get(path);
      expect(res.status).toBe(200);
      const page = (await res.json()) as Page;
      expect(page.events.length).toBeLessThanOrEqual(7);
      seen.push(...page.events.map((e) => e.eventId));
      const link = res.headers.get('link');
      if (page.next === null) expect(link).toBeNull();
      else expect(link).toBe(`</v1/sessions/exp-1/events?after=${page.next}&limit=7>; rel="next"`);
      path = page.next === null ? null : `/v1/sessions/exp-1/events?after=${page.next}&limit=7`;
      pages++;
    }
    expect(pages).toBe(Math.ceil(all.length / 7));
    expect(seen).toEqual(all.map((e) => e.eventId));
  });

  it('defaults to 500 per page and refuses a bad after or limit, or an unknown parameter, with 400 naming the field', async () => {
    const page = (await (await get('/v1/sessions/exp-1/events')).json()) as Page;
    expect(page.next).toBeNull();
    expect(page.events[0].streamPosition).toBe(1);
    for (const q of ['limit=0', 'limit=1001', 'limit=-1', 'limit=x', 'after=-1', 'after=1.5', 'from=3']) {
      const res = await get(`/v1/sessions/exp-1/events?${q}`);
      expect([q, res.status]).toEqual([q, 400]);
      expect(((await res.json()) as { detail: string }).detail).toMatch(new RegExp(`^${q.split('=')[0]}: `));
    }
  });
});

describe('GET /v1/sessions/ID/export', () => {
  it('streams every event as NDJSON, in order, the same as the pages', async () => {
    const res = await get('/v1/sessions/exp-1/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Page['events'][number]);
    const all = await stack.events(a.tenantId, 'exp-1');
    expect(lines.map((e) => e.eventId)).toEqual(all.map((e) => e.eventId));
    expect(lines.map((e) => e.streamPosition)).toEqual(all.map((_, i) => i + 1));
    expect(lines.every((e) => e.tenantId === a.tenantId)).toBe(true);
  });

  it("another tenant's session, and a missing one, are the same 404 problem on both routes", async () => {
    for (const route of ['events', 'export']) {
      const stolen = await get(`/v1/sessions/exp-1/${route}`, b.apiKey);
      const missing = await get(`/v1/sessions/nope/${route}`, b.apiKey);
      expect([stolen.status, missing.status]).toEqual([404, 404]);
      expect(stolen.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const code = async (r: Response) => ((await r.json()) as { code: string }).code;
      expect([await code(stolen), await code(missing)]).toEqual(['SESSION_NOT_FOUND', 'SESSION_NOT_FOUND']);
    }
  });
});
