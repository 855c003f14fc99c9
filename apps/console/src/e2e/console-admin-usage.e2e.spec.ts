import { readFileSync } from 'node:fs';
import { LAPTOP, PHONE, type ConsolePage } from './browser';
import { eventually } from './hub';
import { consoleSuite } from './suite';

// Issue 26 in a real browser against a real hub (ingress and a worker): an admin makes a key in
// the console (its secret shown once) and the key works over HTTP; revoked in the console, the
// hub refuses it. Limits are edited and read back. A turn with a tool call behind an approval
// runs, and the usage page's totals are the usage API's. axe-core and screenshots at a laptop's
// and a phone's width.

jest.setTimeout(180_000);

const hub = consoleSuite('console_admin_usage');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
/** A signed-in page with axe-core in it (an init script: the console's CSP allows no inline script tag). */
async function openWithAxe(viewport = LAPTOP): Promise<ConsolePage> {
  const p = await hub.open(viewport);
  await p.context.addInitScript({ content: AXE });
  await p.page.reload();
  await p.page.getByRole('navigation', { name: 'Main' }).waitFor();
  return p;
}

async function seriousViolations(p: ConsolePage): Promise<string[]> {
  const result = await p.page.evaluate(async () => (window as unknown as { axe: { run(ctx: Document): Promise<AxeResult> } }).axe.run(document));
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

    const phone = await openWithAxe(PHONE);
    await phone.page.getByRole('link', { name: 'Admin' }).click();
    await phone.page.getByRole('heading', { name: 'API keys' }).waitFor();
    await phone.page.getByRole('listitem', { name: `Key ${prefix}` }).waitFor();
    await phone.screenshot('admin-phone');
    expect(await seriousViolations(phone)).toEqual([]);
    expect(await overflows(phone)).toBe(false);
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
    let totals: UsageTotals | undefined;
    await eventually('both turns ended in the usage read model', async () => {
      totals = ((await hub.api('GET', '/v1/usage')).body as { totals: UsageTotals }).totals;
      return totals.turns.completed === 2 && totals.turns.open === 0;
    });
    const api = totals as UsageTotals;
    expect(api.approvals).toBe(1);
    expect(Object.values(api.toolCalls).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);

    for (const [viewport, name] of [
      [LAPTOP, 'usage-laptop'],
      [PHONE, 'usage-phone'],
    ] as const) {
      const p = await openWithAxe(viewport);
      await p.page.getByRole('link', { name: 'Usage' }).click();
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
    for (const [viewport, name] of [
      [LAPTOP, 'timeline-laptop'],
      [PHONE, 'timeline-phone'],
    ] as const) {
      const p = await openWithAxe(viewport);
      await p.page.goto(`${hub.stack.url}/console/sessions/u-1`);
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
