import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { LAPTOP, PHONE, SHOTS_DIR, type ConsolePage } from './browser';
import { eventually } from './hub';
import { consoleSuite, type Tenant } from './suite';

// Every screen of the console against a real hub, the way a reviewer would look at it: axe-core
// finds no serious or critical accessibility violation, nothing overflows a phone's width,
// screenshots of each screen are saved for review, another tenant's session is "not found" like
// one that does not exist, and markup in a tool's arguments stays text on every screen.

jest.setTimeout(240_000);

// The hub re-checks held connections' keys every 500 ms (default 2 s): a revoked key's feed ends sooner, by the same check.
const hub = consoleSuite('console_review', { ingressEnv: { HUB_KEY_RECHECK_MS: '500' } });
let other: Tenant;

/** Markup that would run if a screen rendered it as HTML: it would set a global and log an error. */
const XSS = '<img src=x onerror=console.error(window.__pwned=1)>';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  // Three sessions of their own, seeded side by side: only r-main's two turns depend on each other.
  await Promise.all([
    (async () => {
      other = await hub.stack.createTenant('globex');
      await hub.turn('o-secret', 'read notes.txt', 'idle', other.apiKey);
    })(),
    (async () => {
      await hub.turn('r-main', 'read notes.txt', 'idle');
      await hub.turn('r-main', 'calculate 2 * 21', 'idle');
    })(),
    hub.turn('r-xss', `write "${XSS}" to x.html`, 'approval'),
  ]);
});
afterAll(() => process.stderr.write(`console screenshots: ${SHOTS_DIR}\n`));

/** Each screen, reached as a person would, and what shows it has loaded. */
const SCREENS: { name: string; path: string; ready: string }[] = [
  { name: 'inbox', path: '/console/', ready: '.cards li.card' },
  { name: 'sessions', path: '/console/sessions', ready: 'tr[data-session-id="r-main"]' },
  { name: 'session', path: '/console/sessions/r-main', ready: '.link-live' },
  { name: 'explorer', path: '/console/sessions/r-main/events', ready: '.timeline tbody tr' },
];

async function visit(p: ConsolePage, screen: (typeof SCREENS)[number]): Promise<void> {
  await p.page.goto(`${hub.stack.url}${screen.path}`);
  await p.page.locator(screen.ready).first().waitFor();
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** axe-core's findings on the page as it is now, those a person would be stopped by. */
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

describe('every screen', () => {
  it('has no serious or critical accessibility violation (axe-core), at a laptop and a phone width', async () => {
    // One page for both widths (opening and signing in another costs seconds): each screen is
    // loaded afresh at the width it is checked at.
    const p = await hub.open(LAPTOP);
    // An init script comes from the browser's debugger, not the page: the console's CSP
    // (no inline script) stays in force and axe is still there on every screen.
    await p.context.addInitScript({ content: AXE });
    for (const viewport of [LAPTOP, PHONE]) {
      await p.page.setViewportSize(viewport);
      const found: Record<string, string[]> = {};
      for (const screen of SCREENS) {
        await visit(p, screen);
        found[screen.name] = await seriousViolations(p);
      }
      expect({ viewport, found }).toEqual({ viewport, found: { inbox: [], sessions: [], session: [], explorer: [] } });
    }
  });

  it('does not overflow a phone’s width, and saves a screenshot of each screen at both widths', async () => {
    const p = await hub.open(LAPTOP);
    for (const [label, viewport] of [
      ['laptop', LAPTOP],
      ['phone', PHONE],
    ] as const) {
      await p.page.setViewportSize(viewport);
      for (const screen of SCREENS) {
        await visit(p, screen);
        if (screen.name === 'explorer') await p.page.locator('.ev-payload summary').first().click();
        const overflowBy = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect({ screen: screen.name, label, overflowBy }).toEqual({ screen: screen.name, label, overflowBy: 0 });
        await p.screenshot(`${screen.name}-${label}`);
      }
    }
  });
});

describe('bad input', () => {
  it('shows another tenant’s session exactly as one that does not exist, on the session page and in the explorer', async () => {
    // The session exists, for the other tenant only.
    expect((await hub.api('GET', '/v1/sessions/o-secret/state', undefined, other.apiKey)).status).toBe(200);
    const p = await hub.open();
    p.expectedStatuses.add(404);
    const said = async (path: string, id: string) => {
      await p.page.goto(`${hub.stack.url}${path}`);
      const text = (await p.page.locator('.not-found').textContent()) ?? '';
      expect(await p.page.locator('.transcript, .timeline, form.prompt').count()).toBe(0);
      return text.replace(id, 'ID');
    };
    const notFound = await said('/console/sessions/no-such-session', 'no-such-session');
    expect(notFound).toContain('not found');
    await expect(said('/console/sessions/o-secret', 'o-secret')).resolves.toBe(notFound);
    await expect(said('/console/sessions/o-secret/events', 'o-secret')).resolves.toBe(notFound);
    await expect(said('/console/sessions/no-such-session/events', 'no-such-session')).resolves.toBe(notFound);
    // Nor can the key answer the other tenant's approval: the same 404 as for none at all.
    const answer = (session: string) =>
      hub.api('POST', `/v1/sessions/${session}/approvals/ap-1`, { decision: 'approved' }).then((r) => ({ status: r.status, code: r.body.code as string }));
    await expect(answer('o-secret')).resolves.toEqual(await answer('no-such-session'));
  });

  it('shows markup in a tool’s arguments as text on every screen; none of it runs', async () => {
    const p = await hub.open();
    const pwned = () => p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);
    await visit(p, SCREENS[0]);
    const card = p.card('x.html');
    await expect(card.textContent()).resolves.toContain(XSS);
    expect(await card.locator('img').count()).toBe(0);
    await card.getByRole('button', { name: /Approve/ }).click();
    await card.waitFor({ state: 'detached' });

    await p.page.goto(`${hub.stack.url}/console/sessions/r-xss`);
    const call = p.page.locator('.toolcall').filter({ hasText: 'write_file' });
    await call.locator('summary').click();
    await expect(call.locator('.args').textContent()).resolves.toContain(XSS);
    await expect(p.page.locator('.transcript .msg-user .msg-content').textContent()).resolves.toContain(XSS);
    expect(await p.page.locator('.transcript img').count()).toBe(0);

    await p.page.getByRole('link', { name: 'Run explorer' }).click();
    await p.page.getByLabel('Event type').selectOption('ToolCallStarted');
    const row = p.page.locator('.timeline tbody tr');
    await row.locator('summary').click();
    await expect(row.locator('pre').textContent()).resolves.toContain(XSS);
    await expect(p.page.locator('.state-at').textContent()).resolves.toContain(XSS);
    expect(await p.page.locator('.screen img').count()).toBe(0);
    expect(await pwned()).toBeUndefined();
  });
});

describe('a revoked key', () => {
  async function signedInWithNewKey(): Promise<{ p: ConsolePage; key: string }> {
    // Made over the admin API: a CLI process (`hub.newKey`) costs a second or more, and making the key is not what is tested here.
    const made = await hub.api('POST', '/v1/admin/keys', { name: 'temp', role: 'viewer' });
    expect(made.status).toBe(201);
    const key = (made.body as { apiKey: string }).apiKey;
    const p = await hub.page();
    p.expectedStatuses.add(401);
    await p.signIn(key);
    return { p, key };
  }
  const revoke = (key: string) => hub.stack.revokeKey(key.slice(0, 'hub_'.length + 12));

  it('signs the tab out at its next request with a clear message, shows nothing else, and is refused at sign-in', async () => {
    const { p, key } = await signedInWithNewKey();
    await p.page.getByRole('link', { name: 'Sessions' }).click();
    await p.page.locator('tr[data-session-id="r-main"]').waitFor();
    await revoke(key);
    // The sessions feed is ended for the revoked key (event: error), which signs the tab out.
    await expect(p.page.getByRole('alert').textContent()).resolves.toMatch(/stopped working/);
    expect(await p.page.getByRole('navigation').count()).toBe(0);
    expect(await p.page.locator('.session-table').count()).toBe(0);
    expect(await p.page.evaluate(() => sessionStorage.getItem('hub.apiKey'))).toBeNull();
    await p.page.getByLabel('API key').fill(key);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await expect(p.page.getByRole('alert').textContent()).resolves.toMatch(/refused/);
    expect(await p.page.getByRole('navigation').count()).toBe(0);
  });

  it('signs a live session page out when the hub closes its socket for the revoked key', async () => {
    const { p, key } = await signedInWithNewKey();
    await p.page.goto(`${hub.stack.url}/console/sessions/r-main`);
    await p.page.locator('.link-live').waitFor();
    await revoke(key);
    await expect(p.page.getByRole('alert').textContent()).resolves.toMatch(/stopped working/);
    expect(await p.page.locator('.transcript').count()).toBe(0);
  });
});

/**
 * An OpenAPI 3.0 schema as JSON Schema draft 7 says it, which Ajv reads: `nullable: true` is an
 * `anyOf` with `null`, and a boolean `exclusiveMinimum` / `exclusiveMaximum` takes the bound.
 */
function asJsonSchema(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(asJsonSchema);
  if (!x || typeof x !== 'object') return x;
  const { nullable, ...rest } = x as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, asJsonSchema(v)]));
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag]) out[flag] = out[bound];
    else delete out[flag];
    if (out[flag] !== undefined) delete out[bound];
  }
  return nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

describe('the API client', () => {
  it('is typed from the running hub’s /openapi.json: the committed generated types are current', () => {
    // The project's Node (ADR 0016) loads openapi-typescript's ES modules, which Jest's runtime would not.
    const node = join(__dirname, '../../../../node_modules/.bin/node');
    const check = spawnSync(existsSync(node) ? node : process.execPath, [join(__dirname, '../../scripts/api-types.cjs'), '--check', hub.stack.url], {
      encoding: 'utf8',
    });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('gets answers that fit the document’s response schemas on every route the console reads', async () => {
    const doc = (await (await fetch(`${hub.stack.url}/openapi.json`)).json()) as { components: object };
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ components: asJsonSchema(doc.components) }, 'doc');
    // A pending approval of the test's own (the markup test answered r-xss's): an empty list would fit any item schema.
    await hub.turn('r-pending', 'write "y" to y.txt', 'approval');
    await eventually(
      'the pending approval in GET /v1/approvals',
      async () => (await hub.api('GET', '/v1/approvals?status=pending')).body.approvals.length === 1,
    );
    const reads: [string, string][] = [
      ['/v1/sessions', 'SessionList'],
      ['/v1/sessions/r-main/turns', 'TurnList'],
      ['/v1/approvals?status=pending', 'ApprovalList'],
      ['/v1/approvals?status=resolved', 'ApprovalList'],
      ['/v1/sessions/r-main/events', 'EventPage'],
      ['/v1/sessions/r-xss/events', 'EventPage'],
      ['/v1/sessions/r-main/state', 'SessionState'],
      ['/v1/sessions/no-such-session/state', 'Problem'],
    ];
    const misfits: unknown[] = [];
    for (const [path, schema] of reads) {
      const validate = ajv.getSchema(`doc#/components/schemas/${schema}`);
      const { body } = await hub.api('GET', path);
      if (!validate?.(body)) misfits.push({ path, schema, errors: validate?.errors?.slice(0, 3) });
    }
    expect(misfits).toEqual([]);
  });
});
