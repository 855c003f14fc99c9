import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { HubStack, OidcTestProvider, TEST_AUDIENCE, TEST_CLIENT, TransportTestClient } from '@hub/testing';

// Issue 24: sign-in with the company's identity provider, against a real OpenID provider
// (panva's oidc-provider, started here) and a whole hub. Bearer access tokens on the HTTP API and
// the transport WebSocket; the console's code flow, its cookie session and CSRF proof; an
// approval by a person recorded as that person; an admin's revocation taking effect at once.

jest.setTimeout(180_000);

let stack: HubStack;
let idp: OidcTestProvider;
let other: OidcTestProvider;
let tenant: { tenantId: string; apiKey: string };

const accounts = [
  { sub: 'ada', name: 'Ada Admin', email: 'ada@example.com', groups: ['admins'] },
  { sub: 'aaron', name: 'Aaron Approver', email: 'aaron@example.com', groups: ['approvers', 'staff'] },
  { sub: 'nora', name: 'Nora Nobody', email: 'nora@example.com', groups: ['staff'] },
  { sub: 'fiona', name: 'Fiona Finance', email: 'fiona@example.com', groups: ['approvers', 'finance'] },
];

function bearer(token: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): RequestInit {
  return {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** The answer to a WebSocket upgrade: opened, or the HTTP status and problem it was refused with. */
function upgrade(token: string): Promise<{ opened: true } | { status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/v1/transport?session=oidc-refused`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

/** Signs `sub` in to the console the way a browser does: login, the provider's pages, the callback. Answers the session cookie, or the refusal. */
async function consoleSignIn(sub: string, tamper?: (callback: URL) => void): Promise<{ cookie: string } | { status: number; page: string }> {
  const login = await fetch(`${stack.url}/v1/auth/oidc/login?tenant=${tenant.tenantId}&returnTo=/console/`, { redirect: 'manual' });
  expect(login.status).toBe(302);
  const flow = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('hub_oidc_flow='))
    ?.split(';')[0] as string;
  const callback = new URL(await idp.signInHeadless(new URL(login.headers.get('location') as string), sub, `${stack.url}/v1/auth/oidc/callback`));
  tamper?.(callback);
  const res = await fetch(callback, { redirect: 'manual', headers: { cookie: flow } });
  if (res.status !== 302) return { status: res.status, page: await res.text() };
  expect(res.headers.get('location')).toBe('/console/');
  const session = res.headers.getSetCookie().find((c) => c.startsWith('hub_session='));
  expect(session).toMatch(/HttpOnly/);
  expect(session).toMatch(/SameSite=Strict/);
  return { cookie: (session as string).split(';')[0] };
}

beforeAll(async () => {
  stack = await HubStack.start({ label: 'oidc' });
  [idp, other, tenant] = await Promise.all([
    OidcTestProvider.start({ accounts, redirectUris: [`${stack.url}/v1/auth/oidc/callback`], postLogoutRedirectUris: [`${stack.url}/console/`] }),
    OidcTestProvider.start({ accounts }),
    stack.createTenant('oidc'),
  ]);
  const set = await fetch(
    `${stack.url}/v1/admin/idp`,
    bearer(
      tenant.apiKey,
      {
        name: 'Example SSO',
        issuer: idp.issuer,
        clientId: TEST_CLIENT.id,
        clientSecret: TEST_CLIENT.secret,
        audience: TEST_AUDIENCE,
        scopes: ['openid', 'profile', 'email', 'groups'],
        groupRoles: { admins: 'admin', approvers: 'approver' },
        allowedDomains: ['example.com'],
      },
      'PUT',
    ),
  );
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await Promise.all([idp?.stop(), other?.stop()]);
  await stack?.stop();
});

it("an admin sets the tenant's provider; the secret is never shown back and the change is on the admin stream", async () => {
  const shown = (await (await fetch(`${stack.url}/v1/admin/idp`, bearer(tenant.apiKey))).json()) as { provider: Record<string, unknown> };
  expect(shown.provider).toMatchObject({
    issuer: idp.issuer,
    clientId: TEST_CLIENT.id,
    hasClientSecret: true,
    source: 'tenant',
    groupRoles: { admins: 'admin', approvers: 'approver' },
  });
  expect(JSON.stringify(shown)).not.toContain(TEST_CLIENT.secret);
  const admin = await stack.streamEvents(tenant.tenantId, 'tenant-admin');
  const set = admin.find((e) => e.type === 'IdentityProviderSet');
  expect(set?.data).toMatchObject({ issuer: idp.issuer, hasClientSecret: true });
  expect(JSON.stringify(admin)).not.toContain(TEST_CLIENT.secret);
  // Only an admin: an approver's token may not read it.
  const approver = await idp.accessToken('aaron');
  expect((await fetch(`${stack.url}/v1/admin/idp`, bearer(approver))).status).toBe(403);
});

it("a person's access token drives a turn over the transport WebSocket, and the turn's events name the person", async () => {
  const token = await idp.accessToken('ada');
  const c = await TransportTestClient.connect(stack.url, token, { session: 'oidc-turn' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'calculate 6 * 7' }]);
  await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
  const requested = (await stack.events(tenant.tenantId, 'oidc-turn')).find((e) => e.type === 'TurnRequested');
  expect(requested?.metadata.actor).toEqual({
    type: 'person',
    id: `${idp.issuer}#ada`,
    iss: idp.issuer,
    sub: 'ada',
    name: 'Ada Admin',
    email: 'ada@example.com',
    role: 'admin',
    groups: ['admins'],
  });
});

it('refuses, on HTTP and at the WebSocket upgrade, a wrong audience, another issuer, a person in no mapped group, and an expired token', async () => {
  const expiring = await idp.accessToken('ada', { ttlSeconds: 1 });
  const wrongAudience = await idp.accessToken('ada', { resource: 'urn:another-service' });
  const otherIssuer = await other.accessToken('ada');
  const nobody = await idp.accessToken('nora');
  for (const [token, status, detail] of [
    [wrongAudience, 401, /audience \(urn:another-service\)/],
    [otherIssuer, 401, /issuer .* not accepted/],
    [nobody, 403, /groups staff map to no role/],
  ] as const) {
    const res = await fetch(`${stack.url}/v1/sessions`, bearer(token));
    expect(res.status).toBe(status);
    expect(((await res.json()) as { detail: string }).detail).toMatch(detail);
    const up = await upgrade(token);
    expect(up).toEqual({ status, body: expect.stringMatching(detail) });
  }
  // The short-lived token: refused once its minute-less life (1 s, plus the 5 s clock leeway) is over.
  const deadline = Date.now() + 30_000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) {
    status = (await fetch(`${stack.url}/v1/sessions`, bearer(expiring))).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe(401);
  expect(await upgrade(expiring)).toEqual({ status: 401, body: expect.stringMatching(/expired/) });
});

describe('console sessions', () => {
  let aaron: string;
  let csrf: string;

  it('signs a person in with the code flow: an HttpOnly cookie session, their role from their groups, a CSRF token', async () => {
    const signed = await consoleSignIn('aaron');
    if (!('cookie' in signed)) throw new Error(`refused: ${signed.page}`);
    aaron = signed.cookie;
    const me = (await (await fetch(`${stack.url}/v1/auth/me`, { headers: { cookie: aaron } })).json()) as {
      role: string;
      actor: Record<string, unknown>;
      csrfToken: string;
    };
    expect(me).toMatchObject({ role: 'approver', actor: { type: 'person', sub: 'aaron', name: 'Aaron Approver' } });
    expect(me.csrfToken).toMatch(/^[\w-]{40,}$/);
    csrf = me.csrfToken;
  });

  it("an approval answered in the console's session is the person's, in the log, the export and the inbox; the chain still verifies", async () => {
    const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'oidc-approval' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'write "x" to x.txt' }]);
    await c.waitFor('approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const id = c.lastAssistant()?.toolCalls?.[0]?.approval?.id as string;
    const url = `${stack.url}/v1/sessions/oidc-approval/approvals/${id}`;
    const body = JSON.stringify({ decision: 'approved', reason: 'looks right' });
    // The cookie alone, without the CSRF proof: refused (another site's form could send the cookie).
    const noProof = await fetch(url, { method: 'POST', headers: { cookie: aaron, 'content-type': 'application/json' }, body });
    expect(noProof.status).toBe(403);
    expect(((await noProof.json()) as { detail: string }).detail).toMatch(/CSRF/);
    const wrongProof = await fetch(url, { method: 'POST', headers: { cookie: aaron, 'x-hub-csrf': `${csrf}x`, 'content-type': 'application/json' }, body });
    expect(wrongProof.status).toBe(403);
    const ok = await fetch(url, { method: 'POST', headers: { cookie: aaron, 'x-hub-csrf': csrf, 'content-type': 'application/json' }, body });
    expect(ok.status).toBe(200);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    await c.close();

    const person = {
      type: 'person',
      id: `${idp.issuer}#aaron`,
      iss: idp.issuer,
      sub: 'aaron',
      name: 'Aaron Approver',
      email: 'aaron@example.com',
      role: 'approver',
      groups: ['approvers', 'staff'],
    };
    const resolved = (await stack.events(tenant.tenantId, 'oidc-approval')).find((e) => e.type === 'ApprovalResolved');
    expect((resolved?.data as { by: unknown }).by).toEqual(person);
    expect(resolved?.metadata.actor).toEqual(person);
    const exported = await (await fetch(`${stack.url}/v1/sessions/oidc-approval/export`, bearer(tenant.apiKey))).text();
    const line = exported
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: { by?: unknown } })
      .find((e) => e.type === 'ApprovalResolved');
    expect(line?.data.by).toEqual(person);
    // The inbox's "answered by" (the approvals read model settles a moment later).
    const deadline = Date.now() + 20_000;
    let by: unknown;
    while (by === undefined && Date.now() < deadline) {
      const list = (await (await fetch(`${stack.url}/v1/approvals?status=resolved`, bearer(tenant.apiKey))).json()) as {
        approvals: { approvalId: string; resolution: { by: unknown } | null }[];
      };
      by = list.approvals.find((a) => a.approvalId === id)?.resolution?.by;
      if (by === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(by).toEqual(person);
    const file = join(mkdtempSync(join(tmpdir(), 'hub-oidc-')), 'export.ndjson');
    writeFileSync(file, exported);
    expect((await stack.cli(['audit', 'verify', '--file', file])).code).toBe(0);
    expect((await stack.cli(['audit', 'verify', '--tenant', tenant.tenantId])).code).toBe(0);
  });

  it('an approver may not manage keys; a tampered state and a replayed code are refused', async () => {
    const keys = await fetch(`${stack.url}/v1/admin/keys`, {
      method: 'POST',
      headers: { cookie: aaron, 'x-hub-csrf': csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'mine', role: 'admin' }),
    });
    expect(keys.status).toBe(403);
    const tampered = await consoleSignIn('ada', (u) => u.searchParams.set('state', `${u.searchParams.get('state')}x`));
    expect(tampered).toEqual({ status: 401, page: expect.stringMatching(/state/) });
    // A code used once is used up: the same callback again (with its flow cookie) is refused.
    const login = await fetch(`${stack.url}/v1/auth/oidc/login?tenant=${tenant.tenantId}`, { redirect: 'manual' });
    const flow = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('hub_oidc_flow='))
      ?.split(';')[0] as string;
    const callback = await idp.signInHeadless(new URL(login.headers.get('location') as string), 'ada', `${stack.url}/v1/auth/oidc/callback`);
    expect((await fetch(callback, { redirect: 'manual', headers: { cookie: flow } })).status).toBe(302);
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: flow } });
    expect(replay.status).toBe(401);
  });

  it('strict: a person in no mapped group is refused with a page that says so, and is let in at the next sign-in once in a group', async () => {
    const refused = await consoleSignIn('nora');
    expect(refused).toEqual({ status: 403, page: expect.stringMatching(/map to no role in this hub.*admins, approvers/) });
    idp.setGroups('nora', ['staff', 'approvers']);
    const signed = await consoleSignIn('nora');
    expect(signed).toEqual({ cookie: expect.stringMatching(/^hub_session=/) });
    idp.setGroups('nora', ['staff']);
  });

  it("an admin's revocation (hub idp sessions revoke) ends the person's session at its next request", async () => {
    expect((await fetch(`${stack.url}/v1/auth/me`, { headers: { cookie: aaron } })).status).toBe(200);
    const revoked = await stack.cli(['idp', 'sessions', 'revoke', '--sub', 'aaron'], { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey });
    expect(revoked).toMatchObject({ code: 0 });
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: 1 });
    const after = await fetch(`${stack.url}/v1/auth/me`, { headers: { cookie: aaron } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { detail: string }).detail).toMatch(/revoked/);
  });
});

it('a rule naming approvers by identity group: a person in the group approves in the console, one outside it (same role, bearer token) is refused', async () => {
  const policy = {
    rules: [{ id: 'finance-writes', match: { tool: 'write_file' }, outcome: 'ask', approval: { approvers: { groups: ['finance'] } } }],
    default: { outcome: 'builtin' },
  };
  expect((await fetch(`${stack.url}/v1/admin/policy`, bearer(tenant.apiKey, policy, 'PUT'))).status).toBe(200);
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'oidc-groups' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'write "x" to x.txt' }]);
  await c.waitFor('approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
  const url = `${stack.url}/v1/sessions/oidc-groups/approvals/${c.lastAssistant()?.toolCalls?.[0]?.approval?.id as string}`;
  const outside = await fetch(url, bearer(await idp.accessToken('aaron'), { decision: 'approved' }));
  expect(outside.status).toBe(403);
  expect(await outside.json()).toEqual(expect.objectContaining({ code: 'APPROVER_NOT_ALLOWED', detail: expect.stringMatching(/only group finance/) }));
  const fiona = await consoleSignIn('fiona');
  if (!('cookie' in fiona)) throw new Error(`refused: ${fiona.page}`);
  const { csrfToken } = (await (await fetch(`${stack.url}/v1/auth/me`, { headers: { cookie: fiona.cookie } })).json()) as { csrfToken: string };
  const inside = await fetch(url, {
    method: 'POST',
    headers: { cookie: fiona.cookie, 'x-hub-csrf': csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approved' }),
  });
  expect(inside.status).toBe(200);
  await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
  // The log records the groups that let her in.
  const resolved = (await stack.events(tenant.tenantId, 'oidc-groups')).find((e) => e.type === 'ApprovalResolved');
  expect(resolved?.metadata.actor).toEqual(expect.objectContaining({ sub: 'fiona', groups: ['approvers', 'finance'] }));
});
