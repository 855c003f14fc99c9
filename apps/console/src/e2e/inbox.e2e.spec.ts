import WebSocket from 'ws';
import { TransportTestClient } from '@hub/testing';
import { PHONE, SHOTS_DIR, type ConsolePage } from './browser';
import { consoleSuite } from './suite';

// The console's approval inbox in a real browser (Debian's Chromium through playwright-core)
// against a real hub: ingress serving /console, a worker, Postgres and Redis (issue 14).

jest.setTimeout(180_000);

const hub = consoleSuite('console');
afterAll(() => process.stderr.write(`console screenshots: ${SHOTS_DIR}\n`));

async function raise(session: string, prompt: string): Promise<TransportTestClient> {
  const c = await TransportTestClient.connect(hub.stack.url, hub.tenant.apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('a pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
  return c;
}

const turnDone = (c: TransportTestClient) => c.waitFor('the turn to finish', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');

describe('serving and signing in', () => {
  it('serves the console under /console with a CSP that forbids inline script, and screens fall back to the app', async () => {
    const res = await fetch(`${hub.stack.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect((await fetch(`${hub.stack.url}/console/sessions/x`)).headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${hub.stack.url}/console/../v1/sessions`)).status).not.toBe(200);
    expect((await fetch(`${hub.stack.url}/console/assets/missing.js`)).status).toBe(404);
  });

  it('refuses a bad key with a clear error and shows nothing else; keeps a good key in sessionStorage only; sign-out clears it', async () => {
    const p = await hub.page();
    p.expectedStatuses.add(401);
    await p.page.getByLabel('API key').fill('hub_notarealkey0_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await expect(p.page.getByRole('alert').textContent()).resolves.toMatch(/refused/);
    expect(await p.page.getByRole('navigation').count()).toBe(0);
    await p.signIn(hub.tenant.apiKey);
    expect(p.page.url()).not.toContain(hub.tenant.apiKey);
    expect(await p.page.evaluate(() => sessionStorage.getItem('hub.apiKey'))).toBe(hub.tenant.apiKey);
    expect(await p.page.evaluate(() => JSON.stringify(localStorage) + document.cookie)).not.toContain(hub.tenant.apiKey);
    await p.page.getByRole('button', { name: 'Sign out' }).click();
    await p.page.getByLabel('API key').waitFor();
    expect(await p.page.evaluate(() => sessionStorage.getItem('hub.apiKey'))).toBeNull();
  });

  it('accepts the key as a WebSocket subprotocol and echoes only the marker', async () => {
    const url = `${hub.stack.url.replace('http', 'ws')}/v1/transport?session=c-subprotocol`;
    const ws = new WebSocket(url, ['hub.bearer', `hub.key.${hub.tenant.apiKey}`]);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    expect(ws.protocol).toBe('hub.bearer');
    ws.close();
    const bad = new WebSocket(url, ['hub.bearer', 'hub.key.hub_nope']);
    const status = await new Promise((resolve) => bad.once('unexpected-response', (_req, res) => resolve(res.statusCode)));
    expect(status).toBe(401);
    bad.on('error', () => undefined);
  });
});

describe('the inbox', () => {
  it('shows an approval raised over the transport live; approving it in the browser finishes the waiting turn', async () => {
    const p = await hub.open();
    await p.page.locator('.state.empty').waitFor();
    const c = await raise('c-approve', 'write "hi <img src=x onerror=window.__pwned=1>" to hello.txt');
    const card = p.card('hello.txt');
    await card.waitFor();
    // Arguments are text, never markup.
    await expect(card.textContent()).resolves.toContain('hi <img src=x onerror=window.__pwned=1>');
    expect(await card.locator('img').count()).toBe(0);
    await expect(card.textContent()).resolves.toMatch(/write_file[\s\S]*medium risk[\s\S]*c-approve[\s\S]*via transport/);
    await p.screenshot('inbox-laptop');
    await card.getByRole('button', { name: /Approve/ }).click();
    await turnDone(c);
    expect(c.lastAssistant()?.toolCalls?.[0]?.approval?.status).toBe('approved');
    await card.waitFor({ state: 'detached' });
    expect(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await p.page.getByRole('tab', { name: 'Resolved' }).click();
    await expect(p.page.locator('.resolved .resolution').first().textContent()).resolves.toMatch(/approved by .* via HTTP API/);
    await c.close();
  });

  it('asks to confirm a high-risk approve; a deny with a reason typed from the keyboard reaches the model', async () => {
    const p = await hub.open(PHONE);
    const c = await raise('c-deny', 'delete notes.txt');
    const card = p.card('notes.txt');
    await card.waitFor();
    await p.screenshot('inbox-phone');
    await card.locator('.card-head').click();
    await p.page.keyboard.press('j');
    await p.page.keyboard.press('k');
    await expect(card.getAttribute('aria-current')).resolves.toBe('true');
    await p.page.keyboard.press('a');
    const dialog = p.page.getByRole('alertdialog');
    await expect(dialog.textContent()).resolves.toContain('high risk');
    await p.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await p.page.keyboard.press('r');
    await p.page.keyboard.type('not on a Friday');
    await p.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await p.page.keyboard.press('d');
    await turnDone(c);
    expect(c.lastAssistant()?.content).toMatch(/denied/i);
    const events = await hub.stack.events(hub.tenant.tenantId, 'c-deny');
    const toModel = events.filter((e) => e.type !== 'ApprovalResolved').map((e) => JSON.stringify(e.data));
    expect(toModel.join('\n')).toContain('DENIED: not on a Friday');
    await card.waitFor({ state: 'detached' });
    await c.close();
  });

  it('two browsers racing on one approval: one wins, the other is told who answered', async () => {
    const aliceKey = await hub.newKey('alice', 'approver');
    const [a, b] = await Promise.all([hub.page(), hub.page()]);
    [a, b].forEach((p) => p.expectedStatuses.add(409));
    await Promise.all([a.signIn(aliceKey), b.signIn(hub.tenant.apiKey)]);
    const c = await raise('c-race', 'write "x" to race.txt');
    const buttons = [a, b].map((p) => p.card('race.txt').getByRole('button', { name: /Approve/ }));
    await Promise.all(buttons.map((x) => x.waitFor()));
    // Both clicks at once, as two people would: a click event dispatched on each button, not
    // Playwright's click, which first waits for the button to hold still for a while; on a loaded
    // machine one browser's answer could reach the other (removing its card) before that.
    await Promise.all(buttons.map((x) => x.dispatchEvent('click')));
    await turnDone(c);
    const notices = async (p: ConsolePage, kind: string) => p.page.locator(`.notice-${kind}`).allTextContents();
    await Promise.all([a, b].map((p) => p.page.locator('.notice-ok, .notice-late').first().waitFor()));
    const late = [...(await notices(a, 'late')), ...(await notices(b, 'late'))];
    const ok = [...(await notices(a, 'ok')), ...(await notices(b, 'ok'))];
    expect(ok).toHaveLength(1);
    expect(late).toHaveLength(1);
    const aliceWon = (await notices(a, 'ok')).length === 1;
    expect(late[0]).toMatch(aliceWon ? /already approved by alice \(approver\) via HTTP API/ : /already approved by (?!alice).+ via HTTP API/);
    await c.close();
  });

  it('an approval two must give (ADR 0048): the card shows the votes and who may still approve; the run explorer the rule and policy version', async () => {
    const rule = { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'quorum/**' }] };
    const policy = {
      rules: [
        {
          id: 'two-approvers',
          match: rule,
          outcome: 'ask',
          approval: { required: 2, approvers: { roles: ['admin', 'approver'] }, requesterMayApprove: false },
        },
      ],
    };
    const headers = { authorization: `Bearer ${hub.tenant.apiKey}`, 'content-type': 'application/json' };
    const set = await fetch(`${hub.stack.url}/v1/admin/policy`, { method: 'PUT', headers, body: JSON.stringify(policy) });
    expect(set.status).toBe(200);
    const { version } = (await set.json()) as { version: number };
    const [bob, carol] = [await hub.newKey('bob', 'approver'), await hub.newKey('carol', 'approver')];
    const p = await hub.page();
    await p.signIn(bob);
    // Raised by the admin key: the requester, whom this rule excludes.
    const c = await raise('c-quorum', 'write "x" to quorum/a.txt');
    const card = p.card('quorum/a.txt');
    await card.waitFor();
    // The matched rule and the policy version, as the worker recorded them in the reason.
    await expect(card.locator('.ask-reason').textContent()).resolves.toMatch(new RegExp(`by rule two-approvers: .*\\[policy v${version}\\]`));
    await expect(card.locator('.quorum').textContent()).resolves.toBe(
      '0 of 2 approvals · no approval yet · 2 more from role admin or role approver, not the requester',
    );
    await card.getByRole('button', { name: /Approve/ }).click();
    await p.page.locator('.notice-ok', { hasText: 'write_file: your approval counted, 1 of 2; it waits for the rest.' }).waitFor();
    await card.locator('.quorum', { hasText: '1 of 2 approvals · approved by bob (approver) · 1 more from' }).waitFor();
    await p.screenshot('inbox-quorum');

    await p.page.goto(`${hub.stack.url}/console/sessions/c-quorum/events`);
    const shown = p.page.locator('.approval-at');
    await shown.locator('.policy-rule', { hasText: `rule two-approvers (#0) of policy v${version}` }).waitFor();
    await expect(shown.locator('.quorum').textContent()).resolves.toBe(
      '1 of 2 approvals · approved by bob (approver) · 1 more from role admin or role approver, not the requester, not who approved already',
    );
    const second = await fetch(`${hub.stack.url}/v1/sessions/c-quorum/approvals/${await shown.getAttribute('data-approval-id')}`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${carol}` },
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(await second.json()).toEqual(expect.objectContaining({ status: 'approved' }));
    await turnDone(c);
    // The explorer follows the log: the second vote decided it.
    await shown.locator('.quorum', { hasText: '2 of 2 approvals · approved by bob (approver), carol (approver)' }).waitFor();
    await c.close();
    expect((await fetch(`${hub.stack.url}/v1/admin/policy`, { method: 'PUT', headers, body: JSON.stringify({ rules: [] }) })).status).toBe(200);
  });
});
