import { OidcTestProvider, TEST_AUDIENCE, TEST_CLIENT } from '@hub/testing';
import type { ConsolePage } from './browser';
import { consoleSuite } from './suite';

// Issue 24: the console signs people in with the tenant's identity provider, in Debian's
// Chromium against a real OpenID provider (panva's oidc-provider, started here) and a real hub:
// "Sign in with Example SSO", the provider's own login and consent pages, back to the console
// with an HttpOnly session cookie. Roles come from groups at every sign-in; a person in no
// mapped group sees the refusal page; a tampered state is refused.

jest.setTimeout(180_000);

const hub = consoleSuite('console_oidc');
let idp: OidcTestProvider;

beforeAll(async () => {
  idp = await OidcTestProvider.start({
    accounts: [
      { sub: 'ada', name: 'Ada Admin', email: 'ada@example.com', groups: ['admins'] },
      { sub: 'aaron', name: 'Aaron Approver', email: 'aaron@example.com', groups: ['approvers'] },
      { sub: 'nora', name: 'Nora Nobody', email: 'nora@example.com', groups: ['staff'] },
    ],
    redirectUris: [`${hub.stack.url}/v1/auth/oidc/callback`],
    postLogoutRedirectUris: [`${hub.stack.url}/console/`],
  });
  const set = await hub.api('PUT', '/v1/admin/idp', {
    name: 'Example SSO',
    issuer: idp.issuer,
    clientId: TEST_CLIENT.id,
    clientSecret: TEST_CLIENT.secret,
    audience: TEST_AUDIENCE,
    scopes: ['openid', 'profile', 'email', 'groups'],
    groupRoles: { admins: 'admin', approvers: 'approver' },
  });
  expect(set.status).toBe(200);
});
afterAll(() => idp?.stop());

/**
 * A page of its own whose requests stay on this machine: the provider's development pages link a
 * web font from the internet and have no favicon, which this offline box would log as errors of
 * the page (they are the provider's, not the console's).
 */
async function page(): Promise<ConsolePage> {
  const p = await hub.page();
  await p.context.route(
    (u) => u.hostname !== '127.0.0.1' && u.hostname !== 'localhost',
    (route) => route.fulfill({ status: 204, body: '' }),
  );
  await p.context.route(`${idp.issuer}/favicon.ico`, (route) => route.fulfill({ status: 204, body: '' }));
  return p;
}

/** From the console's sign-in page through the provider's login and consent pages, as `sub`. */
async function signInAs(p: ConsolePage, sub: string): Promise<void> {
  await p.page.goto(`${hub.stack.url}/console/?tenant=${hub.tenant.tenantId}`);
  await p.page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
  await p.page.locator('input[name="login"]').fill(sub);
  await p.page.locator('input[name="password"]').fill('any');
  await p.page.getByRole('button', { name: 'Sign-in' }).click();
  await p.page.getByRole('button', { name: 'Continue' }).click();
}

/** A request from the page itself (its cookie; the CSRF token as the console sends it). */
function fromPage(p: ConsolePage, method: string, path: string, body?: unknown): Promise<number> {
  return p.page.evaluate(
    async ({ method, path, body }) => {
      const s = (await (await fetch('/v1/auth/oidc/session')).json()) as { csrfToken: string };
      const res = await fetch(path, {
        method,
        headers: { 'X-Hub-CSRF': s.csrfToken, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.status;
    },
    { method, path, body },
  );
}

it('an admin-group person signs in with the provider and gets the console as an admin; signing out ends the session at the provider too', async () => {
  const p = await page();
  await signInAs(p, 'ada');
  await p.page.getByRole('navigation', { name: 'Main' }).waitFor();
  await expect(p.page.locator('.who').textContent()).resolves.toBe('Ada Admin (admin)');
  expect(await fromPage(p, 'GET', '/v1/admin/keys')).toBe(200);
  const cookies = await p.context.cookies();
  expect(cookies.find((c) => c.name === 'hub_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  await p.page.getByRole('button', { name: 'Sign out' }).click();
  // RP-initiated logout: the provider asks to confirm, then sends the browser back to the console.
  await p.page.waitForURL((u) => u.href.startsWith(idp.issuer));
  expect((await p.context.cookies()).find((c) => c.name === 'hub_session')).toBeUndefined();
});

it('an approver-group person approves in the inbox, shown as themselves, but may not manage keys', async () => {
  const p = await page();
  p.expectedStatuses.add(403);
  await signInAs(p, 'aaron');
  await p.page.getByRole('navigation', { name: 'Main' }).waitFor();
  await expect(p.page.locator('.who').textContent()).resolves.toBe('Aaron Approver (approver)');
  await hub.turn('sso-approve', 'write "hi" to sso.txt', 'approval');
  const card = p.card('sso.txt');
  await card.getByRole('button', { name: /Approve/ }).click();
  await card.waitFor({ state: 'detached' });
  await p.page.getByRole('tab', { name: 'Resolved' }).click();
  await expect(p.page.locator('.resolved .resolution').first().textContent()).resolves.toMatch(/approved by Aaron Approver/);
  expect(await fromPage(p, 'POST', '/v1/admin/keys', { name: 'mine', role: 'admin' })).toBe(403);
});

it('a person in no mapped group sees the refusal page; after joining a group, the next sign-in lets them in', async () => {
  const p = await page();
  p.expectedStatuses.add(403);
  await signInAs(p, 'nora');
  await expect(p.page.locator('#reason').textContent()).resolves.toMatch(/map to no role in this hub; ask an admin to add you to one of: admins, approvers/);
  idp.setGroups('nora', ['staff', 'approvers']);
  // Another browser (no session at the provider yet): the provider's pages again, then the console.
  const again = await page();
  await signInAs(again, 'nora');
  await again.page.getByRole('navigation', { name: 'Main' }).waitFor();
  await expect(again.page.locator('.who').textContent()).resolves.toBe('Nora Nobody (approver)');
});

it('a callback whose state was tampered with is refused', async () => {
  const p = await page();
  p.expectedStatuses.add(401);
  await p.page.goto(`${hub.stack.url}/console/?tenant=${hub.tenant.tenantId}`);
  await p.page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
  // At the provider's login page the browser holds the sign-in's flow cookie; a callback with another state is forged.
  await p.page.locator('input[name="login"]').waitFor();
  await p.page.goto(`${hub.stack.url}/v1/auth/oidc/callback?code=forged-code&state=forged-state&iss=${encodeURIComponent(idp.issuer)}`);
  await expect(p.page.locator('#reason').textContent()).resolves.toMatch(/state/);
  expect((await p.context.cookies()).find((c) => c.name === 'hub_session')).toBeUndefined();
});
