import { consoleSuite } from './suite';

// Issue 25: the console's schedules screen in a real browser against a real hub: a schedule's
// timing, last and next run; pause with a note, resume, run now (its session linked), backfill a
// range and the next fire times, each checked against what the API then says. A viewer key
// sees the screen and is refused a change.

jest.setTimeout(180_000);

const hub = consoleSuite('console_schedules');

interface Schedule {
  id: string;
  paused: boolean;
  note: string | null;
  lastRun: { sessionId: string | null; source: string } | null;
}
interface Tick {
  scheduledAt: string;
  outcome: string;
  source: string;
  sessionId: string | null;
}

async function eventually(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('schedules', () => {
  it('shows a schedule; pause with a note, run now, resume, backfill and preview from the page', async () => {
    const created = (
      await hub.api('POST', '/v1/schedules', { name: 'new year', cron: '0 0 1 1 *', timeZone: 'UTC', run: { prompt: 'hello', sessionPattern: 'c-{ms}' } })
    ).body as { id: string };
    const schedule = () => hub.api('GET', `/v1/schedules/${created.id}`).then((r) => r.body as Schedule);
    const ticks = () => hub.api('GET', `/v1/schedules/${created.id}/ticks`).then((r) => (r.body as { ticks: Tick[] }).ticks);
    const p = await hub.open();
    await p.page.getByRole('link', { name: 'Schedules' }).click();
    const item = p.page.locator(`li.schedule[data-schedule-id="${created.id}"]`);
    await item.waitFor();
    await expect(item.locator('.timing').textContent()).resolves.toBe('cron 0 0 1 1 * (UTC)');
    await expect(item.locator('.last-run').textContent()).resolves.toBe('none yet');

    // The next fire times, as the API previews them.
    await item.getByRole('button', { name: 'Next runs' }).click();
    await item.getByRole('list', { name: 'Next runs' }).locator('li').nth(4).waitFor();
    const shown = await item.locator('.preview time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
    expect(shown).toEqual(((await hub.api('GET', `/v1/schedules/${created.id}/preview?count=5`)).body as { fireTimes: string[] }).fireTimes);

    // Pause with a note.
    await item.getByLabel('Note').fill('holiday freeze');
    await item.getByRole('button', { name: 'Pause' }).click();
    await item.locator('.status-paused').waitFor();
    await expect(item.locator('.note').textContent()).resolves.toContain('holiday freeze');
    expect(await schedule()).toEqual(expect.objectContaining({ paused: true, note: 'holiday freeze' }));

    // Run now (while paused): the run's session appears as the last run, linked.
    await item.getByRole('button', { name: 'Run now' }).click();
    await eventually('the triggered run', async () => (await ticks()).some((t) => t.source === 'trigger' && t.outcome === 'started'));
    const link = item.locator('.last-run a');
    await link.waitFor();
    const session = (await schedule()).lastRun?.sessionId as string;
    await expect(link.textContent()).resolves.toBe(session);

    // Resume.
    await item.getByRole('button', { name: 'Resume' }).click();
    await item.locator('.status-active').waitFor();
    expect(await schedule()).toEqual(expect.objectContaining({ paused: false }));

    // Backfill two past new years.
    await item.getByLabel('From').fill('2024-06-01T00:00:00');
    await item.getByLabel('To').fill('2026-06-01T00:00:00');
    await item.getByRole('button', { name: 'Backfill' }).click();
    await item.getByRole('status').filter({ hasText: '2 run(s) asked for' }).waitFor();
    await eventually('the backfilled runs', async () => (await ticks()).filter((t) => t.source === 'backfill' && t.outcome === 'started').length === 2);
    expect(
      (await ticks())
        .filter((t) => t.source === 'backfill')
        .map((t) => t.scheduledAt)
        .sort(),
    ).toEqual(['2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']);

    await p.screenshot('schedules');
    // The last run's link opens the session it made.
    await link.click();
    await p.page.waitForURL(`**/console/sessions/${encodeURIComponent(session)}`);
    await p.screenshot('schedules-run-session');
  });

  it('a viewer key sees schedules and is refused a change', async () => {
    await hub.api('POST', '/v1/schedules', { name: 'viewer sees', intervalMs: 3_600_000, run: { prompt: 'hello' } });
    const viewer = await hub.newKey('dash', 'viewer');
    const p = await hub.page();
    p.expectedStatuses.add(403);
    await p.signIn(viewer);
    await p.page.getByRole('link', { name: 'Schedules' }).click();
    const item = p.page.locator('li.schedule', { hasText: 'viewer sees' });
    await item.waitFor();
    await item.getByRole('button', { name: 'Pause' }).click();
    await item
      .getByRole('alert')
      .filter({ hasText: /admin or operator key/ })
      .waitFor();
  });
});
