import { readFileSync } from 'node:fs';
import type { HarnessState } from '@hub/domain';
import type { ConsolePage } from './browser';
import { eventually } from './hub';
import { consoleSuite } from './suite';

// The run explorer in a real browser against a real hub: every event of a session with its
// envelope, a type filter, an NDJSON export of what is shown, and a cursor slider whose state is
// the transport's projection folded up to that event. At the last event it must be exactly what
// the server answers for `GET /v1/sessions/ID/state`.

jest.setTimeout(180_000);

const hub = consoleSuite('console_explorer');

interface ApiEvent {
  eventId: string;
  type: string;
  streamPosition: number;
  globalPosition: number;
  createdAt: string;
  metadata: { correlationId: string; protocol?: string; actor?: { type: string; id: string; name?: string } };
  data: Record<string, unknown>;
}

const serverState = (session: string) => hub.api('GET', `/v1/sessions/${session}/state`).then((r) => r.body as { state: HarnessState; cursor: number });
const serverEvents = (session: string) => hub.api('GET', `/v1/sessions/${session}/events?limit=1000`).then((r) => r.body.events as ApiEvent[]);

/** The state the explorer shows at its cursor, and that cursor. */
async function shownState(p: ConsolePage): Promise<{ state: unknown; cursor: number }> {
  const pre = p.page.locator('.state-json');
  return { state: JSON.parse((await pre.textContent({ timeout: 5000 })) ?? 'null'), cursor: Number(await pre.getAttribute('data-cursor', { timeout: 5000 })) };
}

/** Waits until the explorer, at its last cursor, shows what the server folds. */
async function matchesServer(p: ConsolePage, session: string): Promise<void> {
  let last: unknown;
  await eventually('the explorer to show the server state', async () => {
    const [mine, server] = await Promise.all([shownState(p).catch((e: Error) => e.message), serverState(session)]);
    last = { mine, server };
    return typeof mine !== 'string' && mine.cursor === server.cursor && JSON.stringify(mine.state) === JSON.stringify(server.state);
  }).catch(() => expect(last).toBe('equal'));
}

/** Runs each prompt as a turn of `session`, then opens its explorer and waits until it shows the server's state; with the session's events as the API answers them. */
async function explorerAfter(session: string, prompts: string[]): Promise<{ p: ConsolePage; events: ApiEvent[] }> {
  for (const prompt of prompts) await hub.turn(session, prompt, 'idle');
  const events = await serverEvents(session);
  const p = await hub.open();
  await p.page.goto(`${hub.stack.url}/console/sessions/${session}/events`);
  await matchesServer(p, session);
  return { p, events };
}

describe('run explorer', () => {
  it('at the last cursor shows exactly GET /v1/sessions/ID/state, and follows new events live', async () => {
    await hub.turn('e-run', 'read notes.txt', 'idle');
    await hub.turn('e-run', 'write "from the explorer" to e.txt', 'approval');
    const p = await hub.open();
    await p.page.goto(`${hub.stack.url}/console/sessions/e-run`);
    await p.page.getByRole('link', { name: 'Run explorer' }).click();
    await p.page.getByRole('heading', { name: /Run explorer/ }).waitFor();
    await matchesServer(p, 'e-run');
    // Events while the page is open: the timeline reads on and the slider stays at the end.
    const queued = hub.turn('e-run', 'calculate 2 * 21', 'idle');
    const pending = (await serverState('e-run')).state.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.approval?.status === 'pending');
    const answered = await hub.api('POST', `/v1/sessions/e-run/approvals/${pending?.approval?.id}`, { decision: 'approved' });
    expect(answered.status).toBe(200);
    await queued;
    await matchesServer(p, 'e-run');
    expect(await p.page.locator('.timeline tbody tr').count()).toBe((await serverEvents('e-run')).length);
  });

  it('shows every event with type, time, actor, protocol and correlation id; the slider shows the state at any cursor', async () => {
    const { p, events } = await explorerAfter('e-slide', ['read notes.txt', 'calculate 2 * 21']);
    const rows = p.page.locator('.timeline tbody tr');
    expect(await rows.count()).toBe(events.length);
    const first = rows.first();
    await expect(first.locator('.ev-type').textContent()).resolves.toBe(events[0].type);
    await expect(first.locator('.ev-protocol').textContent()).resolves.toBe('transport');
    await expect(first.locator('.ev-correlation').textContent()).resolves.toBe(events[0].metadata.correlationId);
    await expect(first.locator('.ev-actor').textContent()).resolves.toContain(events[0].metadata.actor?.name ?? events[0].metadata.actor?.id ?? '?');
    await expect(first.locator('.ev-time').getAttribute('datetime')).resolves.toBe(events[0].createdAt);
    // The payload is there, folded.
    await first.locator('.ev-payload summary').click();
    await expect(first.locator('.ev-payload pre').textContent()).resolves.toContain('"sessionId": "e-slide"');

    // The state right after the first turn ended: two messages, idle, at that event's cursor.
    const firstEnd = events.findIndex((e) => e.type === 'TurnCompleted');
    const slider = p.page.getByRole('slider', { name: 'Cursor' });
    await slider.focus();
    await p.page.keyboard.press('Home');
    await expect(shownState(p)).resolves.toEqual({ state: { status: 'idle', messages: [] }, cursor: 0 });
    for (let i = 0; i <= firstEnd; i++) await p.page.keyboard.press('ArrowRight');
    const mid = await shownState(p);
    const final = await serverState('e-slide');
    expect(mid.cursor).toBe(events[firstEnd].globalPosition);
    expect(mid.state).toEqual({ ...final.state, messages: final.state.messages.slice(0, 2) });
    await expect(rows.nth(firstEnd).getAttribute('aria-current')).resolves.toBe('true');
    // Clicking an event moves the cursor there.
    await rows.nth(1).locator('.ev-at').click();
    await expect(shownState(p).then((s) => s.cursor)).resolves.toBe(events[1].globalPosition);
    await slider.focus();
    await p.page.keyboard.press('End');
    await matchesServer(p, 'e-slide');
  });

  it('filters the timeline by type and exports what it shows as NDJSON', async () => {
    const { p, events } = await explorerAfter('e-export', ['read notes.txt', 'read notes.txt']);
    await p.page.getByLabel('Event type').selectOption('ToolCallStarted');
    const rows = p.page.locator('.timeline tbody tr');
    const wanted = events.filter((e) => e.type === 'ToolCallStarted');
    expect(wanted).toHaveLength(2);
    await eventually('the filter', async () => (await rows.count()) === wanted.length);
    expect(await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-type')))).toEqual(['ToolCallStarted', 'ToolCallStarted']);
    // The filter narrows the list only: the state is still folded from every event.
    await matchesServer(p, 'e-export');
    const [download] = await Promise.all([p.page.waitForEvent('download'), p.page.getByRole('button', { name: /Export/ }).click()]);
    expect(download.suggestedFilename()).toBe('e-export.ToolCallStarted.ndjson');
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l) as ApiEvent)).toEqual(wanted);
    await p.page.getByLabel('Event type').selectOption('');
    await eventually('all events again', async () => (await rows.count()) === events.length);
  });
});
