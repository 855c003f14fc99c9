import { PHONE, type ConsolePage } from './browser';
import { consoleSuite } from './suite';

// The console's sessions list and live session page in a real browser against a real hub: the
// transcript over the transport WebSocket (key as a subprotocol), resumed by cursor after a drop,
// must equal what the server folds (`GET /v1/sessions/ID/state`).

jest.setTimeout(180_000);

const hub = consoleSuite('console_sessions');

interface Shown {
  role: string;
  content: string;
  toolCalls: string[];
}

/** The transcript as the page shows it, and the server's state put the same way. */
async function shown(p: ConsolePage): Promise<Shown[]> {
  return p.page.$$eval('.transcript .msg', (els) =>
    els.map((el) => ({
      role: el.classList.contains('msg-user') ? 'user' : 'assistant',
      content: el.querySelector('.msg-content')?.textContent ?? '',
      toolCalls: [...el.querySelectorAll('.toolcall')].map(
        (t) => `${t.querySelector('.tool')?.textContent} ${t.getAttribute('class')?.replace('toolcall toolcall-', '')}`,
      ),
    })),
  );
}

async function serverState(session: string): Promise<{ shown: Shown[]; cursor: number; status: string }> {
  const body = (await hub.api('GET', `/v1/sessions/${session}/state`)).body as {
    state: { status: string; messages: { role: string; content: string; toolCalls?: { name: string; status: string }[] }[] };
    cursor: number;
  };
  return {
    shown: body.state.messages.map((m) => ({ role: m.role, content: m.content, toolCalls: (m.toolCalls ?? []).map((t) => `${t.name} ${t.status}`) })),
    cursor: body.cursor,
    status: body.state.status,
  };
}

/** Waits until the page shows exactly what the server folds, at the server's cursor. */
async function matchesServer(p: ConsolePage, session: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const server = await serverState(session);
    const cursor = Number(await p.page.locator('.session-head [data-cursor]').getAttribute('data-cursor'));
    const mine = await shown(p);
    if (cursor === server.cursor && JSON.stringify(mine) === JSON.stringify(server.shown)) return;
    if (Date.now() > deadline) expect({ cursor, mine }).toEqual({ cursor: server.cursor, mine: server.shown });
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('sessions', () => {
  it('lists the tenant’s sessions and filters them by status and protocol', async () => {
    await hub.turn('s-idle', 'read notes.txt', 'idle');
    await hub.turn('s-waiting', 'delete data/numbers.csv', 'approval');
    const p = await hub.open();
    await p.page.getByRole('link', { name: 'Sessions' }).click();
    const rows = p.page.locator('.session-table tbody tr');
    await p.page.locator('tr[data-session-id="s-waiting"]').waitFor();
    await p.page.locator('tr[data-session-id="s-idle"]').waitFor();
    await p.page.getByLabel('Status').selectOption('awaiting_approval');
    await p.page.locator('tr[data-session-id="s-idle"]').waitFor({ state: 'detached' });
    // The filtered page may still be loading once the old rows are gone: wait for its row.
    await p.page.locator('tr[data-session-id="s-waiting"]').waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-session-id')))).toEqual(['s-waiting']);
    await p.page.getByLabel('Status').selectOption('');
    await p.page.getByLabel('Protocol').selectOption('acp');
    await p.page.locator('.state.empty').waitFor();
    await p.page.getByLabel('Protocol').selectOption('transport');
    await p.page.locator('tr[data-session-id="s-idle"]').waitFor();
    await p.screenshot('sessions-list');
  });

  it('keeps the list live without a reload or a poll: a new session appears on top, one leaves a filter it stops matching, an erased one leaves', async () => {
    await hub.turn('s-before', 'read notes.txt', 'idle');
    const p = await hub.open();
    // Count the list reads the page makes: after the first load, the feed alone moves the rows.
    let reads = 0;
    p.page.on('request', (r) => void (new URL(r.url()).pathname === '/v1/sessions' && reads++));
    await p.page.getByRole('link', { name: 'Sessions' }).click();
    await p.page.locator('tr[data-session-id="s-before"]').waitFor();
    await p.page.locator('.feed-live').waitFor();
    // The first connect reads the list once more (useSessionFeed): wait until no read comes for 300 ms.
    for (let last = -1; last !== reads;) {
      last = reads;
      await new Promise((r) => setTimeout(r, 300));
    }
    const settled = reads;
    const order = () => p.page.locator('.session-table tbody tr').evaluateAll((trs) => trs.map((t) => t.getAttribute('data-session-id')));

    await hub.turn('s-arrives', 'delete data/numbers.csv', 'approval');
    await p.page.locator('tr[data-session-id="s-arrives"] .status-awaiting_approval').waitFor();
    expect((await order())[0]).toBe('s-arrives');
    expect(reads).toBe(settled);

    // Filtered to sessions awaiting approval, the session leaves the list once it is answered.
    await p.page.getByLabel('Status').selectOption('awaiting_approval');
    await p.page.locator('tr[data-session-id="s-before"]').waitFor({ state: 'detached' });
    await p.page.locator('tr[data-session-id="s-arrives"]').waitFor();
    const readsBeforeAnswer = reads;
    const pending = (await hub.api('GET', '/v1/approvals?status=pending&sessionId=s-arrives')).body as { approvals: { approvalId: string }[] };
    await hub.api('POST', `/v1/sessions/s-arrives/approvals/${pending.approvals[0].approvalId}`, { decision: 'denied', reason: 'not today' });
    await p.page.locator('tr[data-session-id="s-arrives"]').waitFor({ state: 'detached' });
    expect(await order()).not.toContain('s-before');
    // Moved by the feed: no list was read again for either change (the filter's own load aside).
    expect(reads - readsBeforeAnswer).toBe(0);
    expect(settled).toBeGreaterThan(0);

    // Erased by an admin elsewhere: the row leaves the unfiltered list, again without a read.
    await p.page.getByLabel('Status').selectOption('');
    await p.page.locator('tr[data-session-id="s-before"]').waitFor();
    for (let last = -1; last !== reads;) {
      last = reads;
      await new Promise((r) => setTimeout(r, 300));
    }
    const readsBeforeErase = reads;
    expect((await hub.api('DELETE', '/v1/sessions/s-before')).status).toBe(200);
    await p.page.locator('tr[data-session-id="s-before"]').waitFor({ state: 'detached' });
    expect(await order()).toContain('s-arrives');
    expect(reads - readsBeforeErase).toBe(0);
  });

  it('shows a session live: a prompt and an inline approval from the page, the transcript equal to the server’s state', async () => {
    await hub.turn('s-live', 'read notes.txt', 'idle');
    const p = await hub.open();
    await p.page.getByRole('link', { name: 'Sessions' }).click();
    await p.page.getByRole('link', { name: 's-live' }).click();
    await p.page.locator('.link-live').waitFor();
    await matchesServer(p, 's-live');
    await p.page.getByLabel('Prompt').fill('write "from the console" to c.txt');
    await p.page.getByRole('button', { name: 'Send' }).click();
    await p.page.locator('.transcript').getByRole('button', { name: 'Approve' }).click();
    await p.page.locator('.session-head .status-idle').waitFor();
    await matchesServer(p, 's-live');
    expect((await shown(p)).at(-1)?.toolCalls).toEqual(['write_file complete']);
    // Each call's arguments and result come from the log; usage from the turns read model.
    const read = p.page.locator('.toolcall').filter({ hasText: 'read_file' });
    await read.locator('summary').click();
    await expect(read.locator('.tool-output').textContent()).resolves.toContain('Remember to water the plants');
    await expect(read.locator('.args').textContent()).resolves.toContain('notes.txt');
    await expect(p.page.locator('.session-head .usage').textContent()).resolves.toMatch(/^[1-9]\d* tokens$/);
    await p.screenshot('session-laptop');
  });

  it('resumes by cursor after a dropped socket and catches up with what happened meanwhile', async () => {
    await hub.turn('s-drop', 'read notes.txt', 'idle');
    const p = await hub.open(PHONE);
    // Test-only instrumentation: record the page's sockets so the test can drop one as a network would.
    await p.context.addInitScript(() => {
      const Native = window.WebSocket;
      const w = window as unknown as { __sockets: WebSocket[] };
      w.__sockets = [];
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          w.__sockets.push(this);
        }
      };
    });
    await p.page.goto(`${hub.stack.url}/console/sessions/s-drop`);
    await p.page.locator('.link-live').waitFor();
    await matchesServer(p, 's-drop');
    await p.page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets[0].close());
    await hub.turn('s-drop', 'calculate 2 * 21', 'idle');
    await matchesServer(p, 's-drop');
    const urls = await p.page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets.map((s) => s.url));
    expect(urls).toHaveLength(2);
    expect(urls[1]).toMatch(/[?&]after=\d+/);
    expect(urls.join(' ')).not.toContain(hub.tenant.apiKey);
    await p.screenshot('session-phone');
  });
});
