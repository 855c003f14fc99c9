import { HubStack, TransportTestClient, WebhookReceiver, type Received } from '@hub/testing';
import { signLink, signedHeaders } from '@hub/webhooks';

// Issue 28 against real processes: ingress and a worker started through bin/hub, a real HTTP
// receiver on loopback verifying with `standardwebhooks`. Loopback is allowed here explicitly
// (HUB_WEBHOOK_ALLOWED_NETWORKS); the guard's refusals with the setting off are in
// libs/webhooks/src/send.int.spec.ts. Retries are in seconds (HUB_WEBHOOK_RETRY_SCHEDULE).

jest.setTimeout(120_000);

type Tenant = { tenantId: string; apiKey: string };
type Endpoint = { id: string; secret: string };
const LOOPBACK = { HUB_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
let stack: HubStack;
let receiver: WebhookReceiver;
let a: Tenant;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  stack = await HubStack.start({ label: 'webhooks', workers: 0, ingressEnv: LOOPBACK });
  // Links point at this stack's ingress, whose port is known only now. The tenant is made (a CLI
  // run) while the worker starts.
  const tenant = stack.createTenant('a');
  await stack.addWorker({
    ...LOOPBACK,
    HUB_PUBLIC_URL: stack.url,
    HUB_WEBHOOK_RETRY_SCHEDULE: '1.2s,1.2s,1.2s',
    HUB_WEBHOOK_POLL_MS: '50',
    HUB_WEBHOOK_TIMEOUT_MS: '2000',
    HUB_OFFLINE_DELAY_MS: '2',
  });
  a = await tenant;
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const call = async (method: string, path: string, key: string | null, body?: unknown) => {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { [k: string]: never } };
};

async function until<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function endpoint(path: string, events: string[]): Promise<Endpoint> {
  const res = await call('POST', '/v1/webhooks', a.apiKey, { url: receiver.url(path), events, description: path });
  expect(res.status).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return { id: res.body.id as string, secret: res.body.secret as string };
}

const typesAt = (path: string, secret: string) => receiver.at(path).map((r) => WebhookReceiver.verify(secret, r));

describe('approvals that reach people', () => {
  it('a turn asking for approval sends one approval.requested; deciding through its link finishes the turn; approval.resolved and turn.completed follow', async () => {
    const ep = await endpoint('/approvals', ['approval.requested', 'approval.resolved', 'turn.completed']);
    const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'wh-approve' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'write "x" to x.txt' }]);
    const requested = await until('approval.requested delivered', () => receiver.at('/approvals')[0]);
    const body = WebhookReceiver.verify(ep.secret, requested);
    expect(body).toEqual({
      type: 'approval.requested',
      timestamp: expect.any(String),
      data: expect.objectContaining({
        sessionId: 'wh-approve',
        tool: 'write_file',
        risk: expect.any(String),
        approvalId: expect.any(String),
        arguments: expect.anything(),
        deadlineAt: null,
      }),
    });
    const links = body.data.links as { console: string; decide: string };
    expect(links.console).toBe(`${stack.url}/console/sessions/wh-approve`);
    expect(links.decide).toMatch(new RegExp(`^${stack.url}/v1/approval-links/`));

    const decided = await fetch(links.decide, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved', reason: 'from chat' }),
    });
    expect(decided.status).toBe(200);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    await until('approval.resolved and turn.completed', () => receiver.at('/approvals').length >= 3);
    await new Promise((r) => setTimeout(r, 500)); // nothing more comes: exactly one of each
    // In log order (an endpoint's deliveries may run side by side, so arrival order is not promised).
    const delivered = typesAt('/approvals', ep.secret).sort((x, y) => Number(x.data.position) - Number(y.data.position));
    expect(delivered.map((x) => x.type)).toEqual(['approval.requested', 'approval.resolved', 'turn.completed']);
    const resolved = delivered[1];
    const messageId = String(requested.headers['webhook-id']);
    expect(resolved.data).toEqual(
      expect.objectContaining({
        decision: 'approved',
        reason: 'from chat',
        by: expect.objectContaining({ type: 'approval_link', id: `${ep.id}/${messageId}` }),
      }),
    );

    // In the log: the link is the actor, naming the endpoint and the delivery.
    const events = await stack.events(a.tenantId, 'wh-approve');
    const inLog = events.find((e) => e.type === 'ApprovalResolved');
    expect(inLog?.metadata.actor).toEqual(expect.objectContaining({ type: 'approval_link', id: `${ep.id}/${messageId}` }));

    // A second use answers the first decision and who made it.
    const again = await fetch(links.decide, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'denied' }) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual(
      expect.objectContaining({
        code: 'APPROVAL_ALREADY_RESOLVED',
        firstDecision: expect.objectContaining({ decision: 'approved', by: expect.objectContaining({ type: 'approval_link' }) }),
      }),
    );

    // Forged: the same claims under another signature; expired: claims signed with the tenant's real key, past their time.
    const token = links.decide.split('/').at(-1) as string;
    const forged = `${token.split('.')[0]}.${Buffer.alloc(32, 7).toString('base64url')}`;
    expect((await call('POST', `/v1/approval-links/${forged}`, null, { decision: 'approved' })).status).toBe(401);
    expect((await call('POST', '/v1/approval-links/garbage', null, { decision: 'approved' })).status).toBe(401);
    const [{ link_key }] = await stack.query<{ link_key: string }>('SELECT link_key FROM webhook_tenant_settings WHERE tenant_id = $1', [a.tenantId]);
    const claims = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as Parameters<typeof signLink>[0];
    const expired = signLink({ ...claims, x: Date.now() - 1000 }, link_key);
    expect((await call('POST', `/v1/approval-links/${expired}`, null, { decision: 'approved' })).status).toBe(410);
    await c.close();
  });

  it('links off for the tenant: approval.requested carries none and a link already sent is refused', async () => {
    const ep = await endpoint('/links-off', ['approval.requested']);
    expect((await call('PUT', '/v1/webhook-settings', a.apiKey, { approvalLinks: false })).status).toBe(200);
    try {
      const c = await TransportTestClient.connect(stack.url, a.apiKey, { session: 'wh-nolinks' });
      await c.waitFor('snapshot', (x) => x.state !== null);
      c.send([{ type: 'submit', prompt: 'write "y" to y.txt' }]);
      const got = await until('approval.requested', () => receiver.at('/links-off')[0]);
      expect((WebhookReceiver.verify(ep.secret, got).data.links as { decide: unknown }).decide).toBeNull();
      const earlier = (JSON.parse(receiver.at('/approvals')[0].body) as { data: { links: { decide: string } } }).data.links;
      expect((await fetch(earlier.decide, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision":"approved"}' })).status).toBe(
        403,
      );
      await c.close();
    } finally {
      await call('PUT', '/v1/webhook-settings', a.apiKey, { approvalLinks: true });
    }
  });
});

describe('deliveries', () => {
  it('500, 500, 200: three attempts with one webhook-id and rising timestamps, in the delivery log; tampered or old fails verification', async () => {
    const ep = await endpoint('/flaky', ['turn.failed']);
    receiver.answer('/flaky', (_, n) => ({ status: n <= 2 ? 500 : 200 }));
    const sent = await call('POST', `/v1/webhooks/${ep.id}/test`, a.apiKey);
    expect(sent.status).toBe(202);
    const got = await until('three attempts', () => receiver.at('/flaky').length >= 3 && receiver.at('/flaky'));
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([sent.body.messageId]));
    const stamps = got.map((r) => Number(r.headers['webhook-timestamp']));
    expect(stamps[1]).toBeGreaterThan(stamps[0]);
    expect(stamps[2]).toBeGreaterThan(stamps[1]);
    for (const r of got) expect(WebhookReceiver.verify(ep.secret, r).type).toBe('webhook.test');
    const tampered: Received = { ...got[2], body: got[2].body.replace('webhook.test', 'turn.failed') };
    expect(() => WebhookReceiver.verify(ep.secret, tampered)).toThrow(/signature/);
    const old = signedHeaders(String(got[2].headers['webhook-id']), new Date(Date.now() - 600_000), got[2].body, [ep.secret]);
    expect(() => WebhookReceiver.verify(ep.secret, { headers: old as never, body: got[2].body })).toThrow(/too old/);

    const log = await until('three attempts logged', async () => {
      const r = await call('GET', `/v1/webhooks/${ep.id}/attempts`, a.apiKey);
      const attempts = r.body.attempts as unknown as {
        outcome: string;
        responseStatus: number;
        attempt: number;
        nextAttemptAt: string | null;
        latencyMs: number;
      }[];
      return attempts.length === 3 && attempts;
    });
    expect(log.map((x) => [x.attempt, x.outcome, x.responseStatus, x.nextAttemptAt === null])).toEqual([
      [3, 'succeeded', 200, true],
      [2, 'failed', 500, false],
      [1, 'failed', 500, false],
    ]);
    const messages = (await call('GET', `/v1/webhooks/${ep.id}/messages`, a.apiKey)).body.messages as unknown as { status: string; attempts: number }[];
    expect(messages[0]).toEqual(expect.objectContaining({ status: 'succeeded', attempts: 3 }));

    // Redeliver: the same webhook-id once more.
    expect((await call('POST', `/v1/webhooks/${ep.id}/redeliver`, a.apiKey, { messageId: sent.body.messageId })).body).toEqual({ redelivering: 1 });
    const fourth = await until('redelivered', () => receiver.at('/flaky')[3]);
    expect(fourth.headers['webhook-id']).toBe(sent.body.messageId);
    // Everything since a time: the endpoint's one message again; since now: none.
    expect((await call('POST', `/v1/webhooks/${ep.id}/redeliver`, a.apiKey, { since: new Date(Date.now() - 60_000).toISOString() })).body).toEqual({
      redelivering: 1,
    });
    await until('redelivered since', () => receiver.at('/flaky')[4]);
    expect((await call('POST', `/v1/webhooks/${ep.id}/redeliver`, a.apiKey, { since: new Date(Date.now() + 1000).toISOString() })).body).toEqual({
      redelivering: 0,
    });
  });

  it('rotation: during the overlap a receiver holding either secret verifies', async () => {
    const ep = await endpoint('/rotating', ['turn.failed']);
    const rotated = await call('POST', `/v1/webhooks/${ep.id}/rotate`, a.apiKey, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const next = rotated.body.secret as string;
    expect(next).not.toBe(ep.secret);
    await call('POST', `/v1/webhooks/${ep.id}/test`, a.apiKey);
    const got = await until('the test message', () => receiver.at('/rotating')[0]);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(WebhookReceiver.verify(ep.secret, got).type).toBe('webhook.test');
    expect(WebhookReceiver.verify(next, got).type).toBe('webhook.test');
    expect((await call('GET', `/v1/webhooks/${ep.id}`, a.apiKey)).body.previousSecretExpiresAt).toEqual(rotated.body.previousSecretExpiresAt);
  });

  it('a redirect is a failure and 410 disables the endpoint, saying why', async () => {
    const moved = await endpoint('/moved', ['turn.failed']);
    receiver.answer('/moved', () => ({ status: 301, headers: { location: receiver.url('/elsewhere') } }));
    await call('POST', `/v1/webhooks/${moved.id}/test`, a.apiKey);
    const first = await until(
      'the redirect logged',
      async () => ((await call('GET', `/v1/webhooks/${moved.id}/attempts`, a.apiKey)).body.attempts as unknown as { outcome: string }[])[0],
    );
    expect(first.outcome).toBe('redirected');
    expect(receiver.at('/elsewhere')).toHaveLength(0);

    const gone = await endpoint('/gone', ['turn.failed']);
    receiver.answer('/gone', () => ({ status: 410 }));
    await call('POST', `/v1/webhooks/${gone.id}/test`, a.apiKey);
    const disabled = await until('disabled', async () => {
      const e = (await call('GET', `/v1/webhooks/${gone.id}`, a.apiKey)).body;
      return e.enabled === false && e;
    });
    expect(disabled.disabledReason).toMatch(/410 Gone/);
  });
});

describe('administration', () => {
  it('refuses a URL the guard refuses, bad input, and roles that may not; records changes in the admin log', async () => {
    // Another tenant (a CLI run, about a second) is made while the first checks run.
    const other = stack.createTenant('b');
    for (const url of ['http://10.1.2.3/x', 'http://169.254.169.254/latest/meta-data', 'ftp://example.com/x']) {
      const r = await call('POST', '/v1/webhooks', a.apiKey, { url, events: ['turn.completed'] });
      expect([url, r.status, r.body.code]).toEqual([url, 400, 'INVALID_COMMAND']);
    }
    expect((await call('POST', '/v1/webhooks', a.apiKey, { url: receiver.url('/x'), events: ['nope'] })).status).toBe(400);
    expect((await call('POST', '/v1/webhooks', a.apiKey, { url: receiver.url('/x') })).status).toBe(400);
    expect((await call('GET', '/v1/webhooks/00000000-0000-0000-0000-000000000000', a.apiKey)).status).toBe(404);

    const viewer = await call('POST', '/v1/admin/keys', a.apiKey, { name: 'v', role: 'viewer' });
    const vk = viewer.body.apiKey as string;
    expect((await call('GET', '/v1/webhooks', vk)).status).toBe(200);
    expect((await call('POST', '/v1/webhooks', vk, { url: receiver.url('/v'), events: ['*'] })).status).toBe(403);

    const b = await other;
    const mine = await endpoint('/mine', ['*']);
    expect((await call('GET', `/v1/webhooks/${mine.id}`, b.apiKey)).status).toBe(404);
    expect((await call('DELETE', `/v1/webhooks/${mine.id}`, b.apiKey)).status).toBe(404);
    expect(((await call('GET', '/v1/webhooks', b.apiKey)).body.endpoints as unknown[]).length).toBe(0);

    expect((await call('PATCH', `/v1/webhooks/${mine.id}`, a.apiKey, { enabled: false })).body.enabled).toBe(false);
    expect((await call('DELETE', `/v1/webhooks/${mine.id}`, a.apiKey)).status).toBe(200);
    // The CLI is a client of the same API.
    const env = { HUB_URL: stack.url, HUB_API_KEY: a.apiKey };
    // An id nobody has is looked up while the endpoint is made.
    const [made, missing] = await Promise.all([
      stack.cli(['webhooks', 'create', '--url', receiver.url('/cli'), '--events', 'turn.completed,turn.failed'], env),
      stack.cli(['webhooks', 'get', 'nope'], env),
    ]);
    expect([made.code, made.stderr]).toEqual([0, '']);
    const cliId = (JSON.parse(made.stdout) as { id: string; secret: string }).id;
    const listed = await stack.cli(['webhooks', 'list'], env);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toContain(cliId);
    expect(missing.code).toBe(1);
    expect((await stack.cli(['webhooks', 'delete', cliId], env)).code).toBe(0);

    const admin = await stack.streamEvents(a.tenantId, 'tenant-admin');
    const mineEvents = admin.filter((e) => e.data.endpointId === mine.id).map((e) => e.type);
    expect(mineEvents).toEqual(['WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookEndpointDeleted']);
    expect(JSON.stringify(admin)).not.toContain('whsec_');
  });
});
