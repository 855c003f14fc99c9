import { readFileSync } from 'node:fs';
import { TransportTestClient } from '@hub/testing';
import { LAPTOP, PHONE, type ConsolePage } from './browser';
import { eventually } from './hub';
import { consoleSuite } from './suite';

// Issue 26 in a real browser against a real hub (ingress and a worker): an admin makes a key in
// the console (its secret shown once) and the key works over HTTP; revoked in the console, the
// hub refuses it. The same key is used from the CLI (`hub chat`), and a socket opened with it is
// closed when the console revokes it. Limits are edited and read back. A turn with a tool call
// behind an approval runs, and the usage page's totals are the usage API's. The timeline of a
// turn whose worker was killed -9 mid-call. axe-core and screenshots at a laptop's and a phone's
// width.

jest.setTimeout(180_000);

const hub = consoleSuite('console_admin_usage');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
/** A signed-in page with axe-core in it (an init script: the console's CSP allows no inline script tag), at `path`. */
async function openWithAxe(viewport = LAPTOP, path = '/console/'): Promise<ConsolePage> {
  const p = await hub.open(viewport);
  await p.context.addInitScript({ content: AXE });
  await load(p, viewport, path);
  return p;
}

/**
 * `path` loaded afresh in `p` at `viewport` (axe in it again): a test's phone-width check in the
 * page it already has, where opening and signing in another would cost seconds.
 */
async function load(p: ConsolePage, viewport: typeof LAPTOP, path: string): Promise<void> {
  await p.page.setViewportSize(viewport);
  await p.page.goto(`${hub.stack.url}${path}`);
  await p.page.getByRole('navigation', { name: 'Main' }).waitFor();
}

async function seriousViolations(p: ConsolePage): Promise<string[]> {
  // Every rule runs; only violations are gathered with all their nodes (passes and the rest are
  // not read here, and collecting each of their nodes is most of axe's time on a long page).
  const result = await p.page.evaluate(async () =>
    (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<AxeResult> } }).axe.run(document, { resultTypes: ['violations'] }),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Nothing wider than the window (a phone scrolls down, never sideways). */
const overflows = (p: ConsolePage) => p.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

interface UsageTotals {
  turns: Record<string, number>;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  toolCalls: Record<string, number>;
  approvals: number;
  approvalWaitMs: number;
}

describe('admin', () => {
  it('creates a key that works, revokes it and the hub refuses it; edits limits', async () => {
    const p = await openWithAxe();
    await p.page.getByRole('link', { name: 'Admin' }).click();
    const form = p.page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill('ci-bot');
    await form.getByLabel('Role').selectOption('operator');
    await form.getByRole('button', { name: 'Create key' }).click();
    const secret = (await form.getByLabel('The new key').textContent()) as string;
    expect(secret).toMatch(/^hub_[A-Za-z0-9]{12}_/);
    const prefix = secret.split('_').slice(0, 2).join('_');
    // Used over HTTP, not from the console: it works.
    expect((await hub.api('GET', '/v1/sessions', undefined, secret)).status).toBe(200);
    // Used from the CLI (`bin/hub chat`, a process of its own): the hub answers the prompt.
    const chat = await hub.stack.cli(['chat', '--session', 'console-key', 'hello from the cli'], { HUB_URL: hub.stack.url, HUB_API_KEY: secret });
    expect({ code: chat.code, stderr: chat.stderr }).toMatchObject({ code: 0 });
    expect(chat.stdout).toContain('You said: "hello from the cli"');
    // A socket opened with it, left open across the revocation below.
    const socket = await TransportTestClient.connect(hub.stack.url, secret, { session: 'console-key' });
    await socket.waitFor('snapshot', (c) => c.state !== null);
    expect(socket.state?.messages.length).toBe(2);
    const item = p.page.getByRole('listitem', { name: `Key ${prefix}` });
    await item.getByText('operator').waitFor();
    await form.getByRole('button', { name: 'I have copied it' }).click();
    await form.getByLabel('The new key').waitFor({ state: 'detached' });
    await p.screenshot('admin-laptop');
    expect(await seriousViolations(p)).toEqual([]);

    // Revoked from the console (by the keyboard): refused from then on.
    await item.getByRole('button', { name: `Revoke ${prefix}` }).focus();
    await p.page.keyboard.press('Enter');
    await item.getByRole('button', { name: `Yes, revoke ${prefix}` }).click();
    await item.getByText('revoked', { exact: true }).waitFor();
    await eventually('the revoked key refused', async () => (await hub.api('GET', '/v1/sessions', undefined, secret)).status === 401);
    // Its socket is closed with the hub's unauthenticated code, after its protocol's last word.
    await socket.waitFor('the socket closed for its revoked key', (c) => c.closeCode !== null, 10_000);
    expect(socket.closeCode).toBe(4401);
    expect(socket.frames.at(-1)).toMatchObject({ type: 'error', code: 'unauthenticated' });
    await p.screenshot('admin-revoked-laptop');

    // Limits: one set, the rest left without a limit; the API reads back what the form saved.
    const limits = p.page.getByRole('form', { name: 'Limits' });
    await limits.getByLabel('Turns per minute').fill('500');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.getByText('Saved.').waitFor();
    expect((await hub.api('GET', '/v1/admin/limits')).body).toEqual({ limits: expect.objectContaining({ turnsPerMinute: 500, tokensPerDay: null }) });
    await limits.getByLabel('Turns per minute').fill('');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await eventually(
      'the limit removed',
      async () => ((await hub.api('GET', '/v1/admin/limits')).body as { limits: { turnsPerMinute: number | null } }).limits.turnsPerMinute === null,
    );

    await load(p, PHONE, '/console/');
    await p.page.getByRole('link', { name: 'Admin' }).click();
    await p.page.getByRole('heading', { name: 'API keys' }).waitFor();
    await p.page.getByRole('listitem', { name: `Key ${prefix}` }).waitFor();
    await p.screenshot('admin-phone');
    expect(await seriousViolations(p)).toEqual([]);
    expect(await overflows(p)).toBe(false);
  });

  it('tells a key that is not an admin’s that it needs one', async () => {
    // Made over the admin API (a cold CLI process under a loaded CI machine once timed out on its Prisma transaction).
    const made = await hub.api('POST', '/v1/admin/keys', { name: 'watcher', role: 'viewer' });
    expect(made.status).toBe(201);
    const viewer = (made.body as { apiKey: string }).apiKey;
    const p = await hub.page(LAPTOP);
    p.expectedStatuses.add(403);
    await p.signIn(viewer);
    await p.page.getByRole('link', { name: 'Admin' }).click();
    await p.page.getByText('Managing keys needs an admin key.').waitFor();
    await p.page.getByText('Limits need an admin key.').waitFor();
  });
});

describe('usage', () => {
  it('shows the usage API’s totals for a turn with a tool call and an approval', async () => {
    await hub.turn('u-1', 'delete data/numbers.csv', 'approval');
    // The approvals list is a read model: the request shows there a moment after the transport saw it.
    let pending: { approvalId: string }[] = [];
    await eventually('the approval listed', async () => {
      pending = ((await hub.api('GET', '/v1/approvals?sessionId=u-1')).body as { approvals: { approvalId: string }[] }).approvals;
      return pending.length === 1;
    });
    expect((await hub.api('POST', `/v1/sessions/u-1/approvals/${pending[0].approvalId}`, { decision: 'approved' })).status).toBe(200);
    await hub.turn('u-1', 'read notes.txt', 'idle');
    // The tenant's own key's usage: the admin test's `hub chat` turn ran under the key it made.
    const key = hub.tenant.keyPrefix;
    let totals: UsageTotals | undefined;
    await eventually('both turns ended in the usage read model', async () => {
      totals = ((await hub.api('GET', `/v1/usage?key=${key}`)).body as { totals: UsageTotals }).totals;
      return totals.turns.completed === 2 && totals.turns.open === 0;
    });
    const api = totals as UsageTotals;
    expect(api.approvals).toBe(1);
    expect(Object.values(api.toolCalls).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);

    const p = await openWithAxe(LAPTOP);
    for (const [viewport, name] of [
      [LAPTOP, 'usage-laptop'],
      [PHONE, 'usage-phone'],
    ] as const) {
      if (viewport !== LAPTOP) await load(p, viewport, '/console/');
      await p.page.getByRole('link', { name: 'Usage' }).click();
      await p.page.getByLabel('Key prefix').fill(key);
      const box = p.page.getByRole('region', { name: 'Totals', exact: true });
      const total = (field: string) => box.locator(`dd[data-total="${field}"]`).textContent();
      await eventually('the page shows both turns', async () => (await total('completed')) === '2');
      expect(await total('modelCalls')).toBe(api.modelCalls.toLocaleString('en-US'));
      expect(await total('promptTokens')).toBe(api.promptTokens.toLocaleString('en-US'));
      expect(await total('completionTokens')).toBe(api.completionTokens.toLocaleString('en-US'));
      expect(await total('approvals')).toBe(String(api.approvals));
      expect(await total('toolCalls')).toBe(
        Object.entries(api.toolCalls)
          .map(([k, n]) => `${k}: ${n}`)
          .join(', '),
      );
      // The chart's legend sums the drawn series: the same turns and tokens.
      await p.page.getByText(`Tokens in: ${api.promptTokens.toLocaleString('en-US')}`).waitFor();
      await p.page.getByText('Completed: 2').waitFor();
      expect(await p.page.locator('.usage-chart canvas').count()).toBe(2);
      await p.screenshot(name);
      expect(await seriousViolations(p)).toEqual([]);
      expect(await overflows(p)).toBe(false);
    }
  });

  it('draws the turn’s timeline: queue, model calls with tokens, the tool call and the approval wait, to the events’ times', async () => {
    const { events } = (await hub.api('GET', '/v1/sessions/u-1/events?limit=1000')).body as {
      events: { type: string; createdAt: string; streamPosition: number; data: { turnId?: string; executor?: string } }[];
    };
    const firstTurn = events.find((e) => e.type === 'TurnRequested')?.data.turnId as string;
    const of = (type: string) => events.filter((e) => e.type === type && e.data.turnId === firstTurn);
    const apart = (a: string, b: string) => Date.parse(of(b)[0].createdAt) - Date.parse(of(a)[0].createdAt);
    const p = await openWithAxe(LAPTOP, '/console/sessions/u-1');
    for (const [viewport, name] of [
      [LAPTOP, 'timeline-laptop'],
      [PHONE, 'timeline-phone'],
    ] as const) {
      if (viewport !== LAPTOP) await load(p, viewport, '/console/sessions/u-1');
      const turn = p.page.getByRole('listitem', { name: `Turn ${firstTurn}` });
      await turn.getByText('completed', { exact: true }).waitFor();
      const step = (kind: string) => turn.locator(`li.step[data-kind="${kind}"]`);
      expect(await step('approval').count()).toBe(1);
      expect(Number(await step('approval').getAttribute('data-duration-ms'))).toBe(apart('ApprovalRequested', 'ApprovalResolved'));
      expect(Number(await step('tool').first().getAttribute('data-duration-ms'))).toBe(apart('ToolCallStarted', 'ToolCallCompleted'));
      expect(Number(await step('model').first().getAttribute('data-duration-ms'))).toBe(apart('ModelCallStarted', 'ModelCallCompleted'));
      expect(Number(await step('queue').getAttribute('data-duration-ms'))).toBe(apart('TurnRequested', 'TurnStarted'));
      await step('approval')
        .getByText(/approved by/)
        .first()
        .waitFor();
      await step('model')
        .first()
        .getByText(/tokens in, \d+ out/)
        .first()
        .waitFor();
      await step('tool')
        .first()
        .getByText(`on ${of('ToolCallStarted')[0].data.executor}`, { exact: false })
        .first()
        .waitFor();
      // Each bar links to the step's first event in the run explorer.
      const href = await step('approval').locator('a.step-bar').getAttribute('href');
      expect(href).toBe(`/console/sessions/u-1/events#event-${of('ApprovalRequested')[0].streamPosition}`);
      await p.screenshot(name);
      expect(await seriousViolations(p)).toEqual([]);
      expect(await overflows(p)).toBe(false);
    }
  });
});

// Issue 23's policy page and issue 24's identity provider page: last in this file, so the policy
// they set decides nothing the tests above run.
describe('policy and identity provider', () => {
  interface Explanation {
    version: number;
    outcome: string;
    rule: { id: string; index: number | null };
    reason: string;
    trace: { id: string; matched: boolean; why: string }[];
  }

  it('saves a policy, explains a call as the API does, and shows a refused policy’s fields by path', async () => {
    const p = await openWithAxe();
    await p.page.getByRole('link', { name: 'Admin' }).click();
    await p.page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Approval policy' }).click();
    const edit = p.page.getByRole('form', { name: 'Edit the policy' });
    const text = edit.getByLabel(/^Policy \(JSON\)/);
    const policy = {
      rules: [
        { id: 'tmp-writes', match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'tmp/**' }] }, outcome: 'allow' },
        {
          id: 'no-outside',
          description: 'nothing outside the workspace',
          match: { tool: '*_file', args: [{ kind: 'path', arg: 'path', outsideWorkspace: true }] },
          outcome: 'deny',
        },
      ],
      default: { outcome: 'builtin' },
    };
    const before = (await hub.api('GET', '/v1/admin/policy')).body as { version: number };
    await text.fill(JSON.stringify(policy, null, 2));
    await edit.getByRole('button', { name: /^Save as version/ }).click();
    await edit.getByText(`Saved as version ${before.version + 1}.`).waitFor();
    const saved = (await hub.api('GET', '/v1/admin/policy')).body as { version: number; policy: { rules: { id: string }[] } };
    expect(saved.version).toBe(before.version + 1);
    expect(saved.policy.rules.map((r) => r.id)).toEqual(['tmp-writes', 'no-outside']);

    // Explain in the page and over the API: the same verdict, rule, reason and trace.
    const form = p.page.getByRole('form', { name: 'Explain' });
    await form.getByLabel('Tool', { exact: true }).fill('delete_file');
    await form.getByLabel('Arguments (JSON)').fill('{"path": "/etc/passwd"}');
    await form.getByRole('button', { name: 'Explain' }).click();
    const shown = p.page.getByRole('region', { name: 'Explanation' });
    await shown.waitFor();
    const api = (await hub.api('POST', '/v1/admin/policy/explain', { tool: 'delete_file', input: { path: '/etc/passwd' } })).body as Explanation;
    expect(api).toMatchObject({ outcome: 'deny', rule: { id: 'no-outside', index: 1 }, version: saved.version });
    expect(await shown.locator('[data-outcome]').getAttribute('data-outcome')).toBe(api.outcome);
    expect(await shown.locator('span[data-rule]').getAttribute('data-rule')).toBe(api.rule.id);
    expect(await shown.locator('.reason').textContent()).toBe(api.reason);
    await shown.getByText(`policy version ${api.version}`).waitFor();
    const rows = await shown.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual(api.trace.map((t) => [t.id, t.matched ? 'yes' : 'no', t.why]));
    await p.screenshot('policy-laptop');
    expect(await seriousViolations(p)).toEqual([]);

    // A rule after a catch-all and a glob that does not compile: refused with each field's path, nothing changed.
    const bad = {
      rules: [
        { id: 'all', outcome: 'ask' },
        { id: 'late', match: { tool: 'write_[' }, outcome: 'deny' },
      ],
    };
    p.expectedStatuses.add(400);
    await text.fill(JSON.stringify(bad));
    await edit.getByRole('button', { name: /^Save as version/ }).click();
    const fields = edit.getByRole('list', { name: 'Refused fields' });
    await fields.waitFor();
    const refused = await hub.api('PUT', '/v1/admin/policy', bad);
    expect(refused.status).toBe(400);
    const issues = (refused.body as { issues: { at: string; message: string }[] }).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(await fields.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-path')))).toEqual(issues.map((i) => i.at));
    expect(await text.getAttribute('aria-invalid')).toBe('true');
    expect(((await hub.api('GET', '/v1/admin/policy')).body as { version: number }).version).toBe(saved.version);

    await load(p, PHONE, '/console/admin/policy');
    await p.page.getByRole('heading', { name: 'Explain a tool call' }).waitFor();
    await p.screenshot('policy-phone');
    expect(await overflows(p)).toBe(false);
  });

  it('adds an identity provider, lists what the API lists, and removes it', async () => {
    const p = await openWithAxe(LAPTOP, '/console/admin/idp');
    await p.page.getByText('None: people sign in with API keys only.').waitFor();
    const form = p.page.getByRole('form', { name: 'Identity provider' });
    await form.getByLabel(/^Name/).fill('Example SSO');
    await form.getByLabel('Issuer URL').fill('http://127.0.0.1:9/realm');
    await form.getByLabel('Client id', { exact: true }).fill('hub-console');
    await form.getByLabel(/^Client secret/).fill('s3cret');
    await form.getByLabel(/^Group roles/).fill('hub-admins = admin\nrelease = approver');
    await form.getByLabel(/^Allowed email domains/).fill('example.com');
    await form.getByRole('button', { name: 'Add provider' }).click();
    const shown = p.page.getByRole('group', { name: 'Provider Example SSO' });
    await shown.waitFor();
    const { provider } = (await hub.api('GET', '/v1/admin/idp')).body as {
      provider: {
        name: string;
        issuer: string;
        clientId: string;
        audience: string;
        scopes: string[];
        groupRoles: Record<string, string>;
        allowedDomains: string[];
        hasClientSecret: boolean;
      };
    };
    expect(provider).toMatchObject({
      name: 'Example SSO',
      clientId: 'hub-console',
      hasClientSecret: true,
      groupRoles: { 'hub-admins': 'admin', release: 'approver' },
    });
    const field = (name: string) => shown.locator(`dd[data-field="${name}"]`).textContent();
    expect(await field('issuer')).toBe(provider.issuer);
    expect(await field('clientId')).toBe(provider.clientId);
    expect(await field('audience')).toBe(provider.audience);
    expect(await field('scopes')).toBe(provider.scopes.join(' '));
    expect(await field('allowedDomains')).toBe(provider.allowedDomains.join(', '));
    expect(await field('hasClientSecret')).toBe('stored (never shown)');
    const mapped = await shown
      .locator('.group-roles tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(Object.fromEntries(mapped)).toEqual(provider.groupRoles);
    expect(await p.page.content()).not.toContain('s3cret');
    await p.screenshot('idp-laptop');
    expect(await seriousViolations(p)).toEqual([]);

    await shown.getByRole('button', { name: 'Remove provider' }).click();
    await shown.getByRole('button', { name: 'Yes, remove it' }).click();
    await p.page.getByText('None: people sign in with API keys only.').waitFor();
    expect((await hub.api('GET', '/v1/admin/idp')).body).toEqual({ provider: null });
  });
});

describe('turn timeline from the explorer, and its last page', () => {
  it('links a turn’s events in the explorer to that turn’s timeline', async () => {
    const { events } = (await hub.api('GET', '/v1/sessions/u-1/events?limit=1000')).body as {
      events: { type: string; createdAt: string; streamPosition: number; data: { turnId?: string } }[];
    };
    const requested = events.find((e) => e.type === 'TurnRequested') as (typeof events)[number];
    const turnId = requested.data.turnId as string;
    const of = (type: string) => events.filter((e) => e.type === type && e.data.turnId === turnId);
    const p = await hub.open(LAPTOP);
    await p.page.goto(`${hub.stack.url}/console/sessions/u-1/events`);
    const row = p.page.locator(`tr#event-${of('ApprovalResolved')[0].streamPosition}`);
    await row.getByRole('link', { name: `turn timeline ${turnId}` }).click();
    await p.page.waitForURL(`**/console/sessions/u-1/turns/${turnId}?after=${requested.streamPosition - 1}`);
    const turn = p.page.getByRole('listitem', { name: `Turn ${turnId}` });
    await turn.getByText('completed', { exact: true }).waitFor();
    const approval = turn.locator('li.step[data-kind="approval"]');
    expect(Number(await approval.getAttribute('data-duration-ms'))).toBe(
      Date.parse(of('ApprovalResolved')[0].createdAt) - Date.parse(of('ApprovalRequested')[0].createdAt),
    );
    expect(await approval.locator('a.step-bar').getAttribute('href')).toBe(`/console/sessions/u-1/events#event-${of('ApprovalRequested')[0].streamPosition}`);
    // The other turn of the session is not on this page.
    expect(await p.page.locator('li.turn').count()).toBe(1);
  });

  it('jumps to the last page of turns and pages back from it', async () => {
    const c = await TransportTestClient.connect(hub.stack.url, hub.tenant.apiKey, { session: 'paged' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    for (let i = 1; i <= 12; i++) {
      c.send([{ type: 'submit', prompt: `hello ${i}` }]);
      await c.waitFor(`turn ${i}`, (x) => x.state?.status === 'idle' && (x.state.messages.length ?? 0) >= 2 * i && x.lastAssistant()?.status === 'complete');
    }
    await c.close();
    await eventually(
      'the turns read model has all 12',
      async () => ((await hub.api('GET', '/v1/sessions/paged/turns?limit=200')).body as { turns: unknown[] }).turns.length === 12,
    );
    const all = ((await hub.api('GET', '/v1/sessions/paged/turns?limit=200')).body as { turns: { turnId: string }[] }).turns.map((t) => t.turnId);

    const p = await hub.open(LAPTOP);
    await p.page.goto(`${hub.stack.url}/console/sessions/paged`);
    const pages = p.page.getByRole('navigation', { name: 'Turn pages' });
    await pages.getByText('Turns 1–10').waitFor();
    await pages.getByRole('button', { name: 'Last turns' }).click();
    await pages.getByText('Turns 11–12').waitFor();
    const shown = () => p.page.locator('li.turn').evaluateAll((lis) => lis.map((li) => li.getAttribute('aria-label')));
    expect(await shown()).toEqual(all.slice(10).map((id) => `Turn ${id}`));
    expect(await pages.getByRole('button', { name: 'Later turns' }).isDisabled()).toBe(true);
    // Back from a page reached by a jump: read back from it, the same ten turns as paging forward.
    await pages.getByRole('button', { name: 'Earlier turns' }).click();
    await pages.getByText('Turns 1–10').waitFor();
    expect(await shown()).toEqual(all.slice(0, 10).map((id) => `Turn ${id}`));
  });
});

// Last in this file: it replaces the suite's worker.
describe('turn timeline after a worker kill -9', () => {
  it('marks the dead worker’s model call interrupted and the time until another took the turn over, to the events’ times', async () => {
    const { stack } = hub;
    const w0 = stack.workers[0];
    // The suite's worker stops while idle: only a slow one (100 ms a word; its job lock lapses 2 s
    // after it dies) can take the turn.
    const [slow] = await Promise.all([stack.addWorker({ HUB_OFFLINE_DELAY_MS: '100', HUB_WORKER_LOCK_MS: '2000' }), w0.kill('SIGTERM')]);
    const c = await TransportTestClient.connect(stack.url, hub.tenant.apiKey, { session: 'retried' });
    await c.waitFor('snapshot', (x) => x.state !== null);
    c.send([{ type: 'submit', prompt: 'long answer 300' }]);
    await c.waitFor('streaming under way', (x) => (x.lastAssistant()?.content.length ?? 0) > 0);
    // Its successor starts while it streams (the whole answer would take it 30 s; the successor streams it at 2 ms a word), then it is killed mid-call.
    const successor = await stack.addWorker({ HUB_WORKER_LOCK_MS: '2000' });
    expect(c.lastAssistant()?.status).not.toBe('complete');
    await slow.kill('SIGKILL');
    await c.waitFor('the turn completed by the successor', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete', 60_000);
    await c.close();

    let events: { type: string; createdAt: string; streamPosition: number; data: { turnId?: string }; metadata: { actor?: { type: string; id: string } } }[] =
      [];
    for (let after = 0; ;) {
      const page = (await hub.api('GET', `/v1/sessions/retried/events?after=${after}&limit=1000`)).body as { events: typeof events; next: number | null };
      events = [...events, ...page.events];
      if (page.next === null) break;
      after = page.next;
    }
    const turnId = events.find((e) => e.type === 'TurnRequested')?.data.turnId as string;
    const ofTurn = events.filter((e) => e.data.turnId === turnId);
    const at = (e: { createdAt: string }) => Date.parse(e.createdAt);
    const byWorker = (pid: number | undefined) => (e: (typeof events)[number]) =>
      e.metadata.actor?.type === 'worker' && e.metadata.actor.id.startsWith(`worker-${pid}-`);
    // The successor's first event, and the turn's event before it (the dead worker's last).
    const takeover = ofTurn.findIndex(byWorker(successor.child.pid));
    expect(takeover).toBeGreaterThan(0);
    expect(ofTurn.some(byWorker(slow.child.pid))).toBe(true);
    const [lastOfDead, firstOfSuccessor] = [ofTurn[takeover - 1], ofTurn[takeover]];
    const modelStarted = ofTurn.find((e) => e.type === 'ModelCallStarted') as (typeof events)[number];
    expect(byWorker(slow.child.pid)(modelStarted)).toBe(true);
    expect(ofTurn.filter((e) => e.type === 'ModelCallCompleted').map(byWorker(successor.child.pid))).toEqual([true]);
    const modelCompleted = ofTurn.find((e) => e.type === 'ModelCallCompleted') as (typeof events)[number];
    const continued = !ofTurn.some((e) => e.type === 'ModelCallStarted' && byWorker(successor.child.pid)(e));

    const p = await openWithAxe(LAPTOP, '/console/sessions/retried');
    const turn = p.page.getByRole('listitem', { name: `Turn ${turnId}` });
    await turn.getByText('completed', { exact: true }).waitFor();
    const model = turn.locator('li.step[data-kind="model"]');
    const retry = turn.locator('li.step[data-kind="retry"]');
    // The same page at a phone's width next (one page: opening another costs seconds).
    for (const [viewport, name] of [
      [LAPTOP, 'timeline-retry-laptop'],
      [PHONE, 'timeline-retry-phone'],
    ] as const) {
      await p.page.setViewportSize(viewport);
      expect(await retry.count()).toBe(1);
      // The successor goes on with the dead worker's call (no second ModelCallStarted): its part
      // is a bar of its own, from the takeover to the call's completion.
      expect(await model.count()).toBe(ofTurn.filter((e) => e.type === 'ModelCallStarted').length + (continued ? 1 : 0));
      if (continued) expect(Number(await model.last().getAttribute('data-duration-ms'))).toBe(at(modelCompleted) - at(firstOfSuccessor));
      expect(await model.first().getAttribute('class')).toContain('outcome-interrupted');
      expect(Number(await model.first().getAttribute('data-duration-ms'))).toBe(at(lastOfDead) - at(modelStarted));
      expect(Number(await retry.getAttribute('data-duration-ms'))).toBe(at(firstOfSuccessor) - at(lastOfDead));
      await retry.getByText(new RegExp(`^worker worker-${slow.child.pid}-\\w+ died; worker-${successor.child.pid}-\\w+ took over$`)).waitFor();
      expect(await retry.locator('a.step-bar').getAttribute('href')).toBe(`/console/sessions/retried/events#event-${firstOfSuccessor.streamPosition}`);
      await p.screenshot(name);
      expect(await seriousViolations(p)).toEqual([]);
      expect(await overflows(p)).toBe(false);
    }
  });
});
