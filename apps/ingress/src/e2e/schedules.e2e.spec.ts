import { HubStack, type HubProcess } from '@hub/testing';

// Issue 25: schedules. Through the HTTP API and `bin/hub schedules` (operators write, viewers
// read): create (idempotent by client key), preview, pause with a note, trigger now, resume,
// backfill, every change on the admin stream; overlap policies recorded; downtime of every
// ticker shorter and longer than the catch-up window. The first ingress serves the API and runs
// no ticker (HUB_SCHEDULE_POLL_MS=0); tickers are the ingresses this file adds and kills.

jest.setTimeout(120_000);

let stack: HubStack;
let ticker: HubProcess;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };
let viewer = '';
let client = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let tickerUrl = '';
const startTicker = async () => {
  const started = await stack.addIngress({ HUB_SCHEDULE_POLL_MS: '150' });
  tickerUrl = started.url;
  return started.process;
};

beforeAll(async () => {
  // 40 ms a word: `long answer 60` runs about 2.4 s, longer than a 1 s schedule's interval.
  stack = await HubStack.start({ label: 'schedules', workers: 1, ingressEnv: { HUB_SCHEDULE_POLL_MS: '0' }, workerEnv: { HUB_OFFLINE_DELAY_MS: '40' } });
  ticker = await startTicker();
  tenant = await stack.createTenant('schedules');
  viewer = ((await (await call('POST', '/v1/admin/keys', tenant.apiKey, { name: 'dash', role: 'viewer' })).json()) as { apiKey: string }).apiKey;
  client = ((await (await call('POST', '/v1/admin/keys', tenant.apiKey, { name: 'app', role: 'client' })).json()) as { apiKey: string }).apiKey;
});
afterAll(() => stack?.stop());

function call(method: string, path: string, key: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
async function json<T = Record<string, unknown>>(method: string, path: string, body?: unknown, status?: number): Promise<T> {
  const res = await call(method, path, tenant.apiKey, body);
  const text = await res.text();
  if (status !== undefined) expect({ status: res.status, text }).toEqual({ status, text: expect.any(String) });
  return JSON.parse(text) as T;
}
const hub = (args: string[]) => stack.cli(['schedules', ...args], { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey });

interface Tick {
  scheduled_at: Date;
  outcome: string;
  reason: string | null;
  source: string;
  session_id: string | null;
  turn_id: string | null;
  started_at: Date | null;
}
const ticksOf = (id: string) => stack.query<Tick>(`SELECT * FROM schedule_ticks WHERE schedule_id = $1 ORDER BY scheduled_at`, [id]);
/** Every turn the log says a schedule requested, with when it was requested and when it ended. */
const turnsOf = (id: string) =>
  stack.query<{ turn_id: string; session: string; requested: Date; ended: Date | null; scheduled_at: string; n: number }>(
    `SELECT r.data->>'turnId' AS turn_id, r.stream_id AS session, r.created_at AS requested, r.metadata->'schedule'->>'scheduledAt' AS scheduled_at,
            (SELECT min(e.created_at) FROM events e WHERE e.tenant_id = r.tenant_id AND e.stream_id = r.stream_id AND e.type IN ('TurnCompleted', 'TurnFailed', 'TurnCancelled') AND e.data->>'turnId' = r.data->>'turnId') AS ended,
            count(*) OVER (PARTITION BY r.data->>'turnId')::int AS n
       FROM events r WHERE r.type = 'TurnRequested' AND r.metadata->'schedule'->>'id' = $1 ORDER BY r.global_position`,
    [id],
  );
const waitFor = async (what: string, ok: () => Promise<boolean>, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
};

describe('the API and the CLI', () => {
  it('create (idempotent by key), preview, pause, trigger, resume, backfill; roles; admin events', async () => {
    const body = { clientKey: 'yearly', name: 'new year', cron: '0 0 1 1 *', timeZone: 'Europe/Berlin', run: { prompt: 'hello', sessionPattern: 'ny-{time}' } };
    const created = await json<{ id: string; nextRunAt: string }>('POST', '/v1/schedules', body, 201);
    const again = await json<{ id: string; spec: { name: string } }>('POST', '/v1/schedules', { ...body, name: 'new year, renamed' }, 200);
    expect(again.id).toBe(created.id);
    expect(again.spec.name).toBe('new year, renamed');
    const id = created.id;
    expect((await json<{ fireTimes: string[] }>('GET', `/v1/schedules/${id}/preview?count=2&after=2026-06-01T00:00:00Z`)).fireTimes).toEqual([
      '2026-12-31T23:00:00.000Z',
      '2027-12-31T23:00:00.000Z',
    ]);

    // The CLI: preview, pause with a note, trigger while paused, resume.
    const preview = await hub(['preview', id, '--count', '3']);
    expect(preview.code).toBe(0);
    expect((JSON.parse(preview.stdout) as { fireTimes: string[] }).fireTimes).toHaveLength(3);
    const paused = await hub(['pause', id, '--note', 'holiday freeze']);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toEqual(expect.objectContaining({ paused: true, note: 'holiday freeze', nextRunAt: null }));
    expect((await hub(['trigger', id])).code).toBe(0);
    await waitFor('the triggered run', async () => (await ticksOf(id)).some((t) => t.source === 'trigger' && t.outcome === 'started'));
    const resumed = await hub(['resume', id]);
    expect(JSON.parse(resumed.stdout)).toEqual(expect.objectContaining({ paused: false, nextRunAt: expect.any(String) }));

    // Backfill: the three new years before now, started as three fresh sessions.
    const bf = await json<{ asked: number; scheduledAt: string[] }>(
      'POST',
      `/v1/schedules/${id}/backfill`,
      { from: '2023-06-01T00:00:00Z', to: '2026-06-01T00:00:00Z' },
      202,
    );
    expect(bf.scheduledAt).toEqual(['2023-12-31T23:00:00.000Z', '2024-12-31T23:00:00.000Z', '2025-12-31T23:00:00.000Z']);
    await waitFor('the backfilled runs', async () => (await ticksOf(id)).filter((t) => t.source === 'backfill' && t.outcome === 'started').length === 3);
    // A second backfill of the same range asks for nothing: those ticks are decided.
    expect(await json('POST', `/v1/schedules/${id}/backfill`, { from: '2023-06-01T00:00:00Z', to: '2026-06-01T00:00:00Z' }, 202)).toEqual(
      expect.objectContaining({ asked: 0, alreadyDecided: 3 }),
    );
    const ticks = await hub(['ticks', id]);
    expect(
      ticks.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { sessionId: string }).sessionId),
    ).toEqual(expect.arrayContaining(['ny-2023-12-31T23:00:00.000Z', 'ny-2024-12-31T23:00:00.000Z', 'ny-2025-12-31T23:00:00.000Z']));

    // The runs' actor is the schedule; its creator and the tick's times go beside it.
    await waitFor('four runs to end', async () => (await turnsOf(id)).filter((t) => t.ended).length === 4);
    const [req] = await stack.query<{ metadata: Record<string, unknown> }>(
      `SELECT metadata FROM events WHERE type = 'TurnRequested' AND stream_id = 'session-ny-2024-12-31T23:00:00.000Z'`,
    );
    expect(req?.metadata).toEqual(
      expect.objectContaining({
        actor: { type: 'system', id: `schedule:${id}`, name: 'new year, renamed' },
        schedule: expect.objectContaining({
          id,
          scheduledAt: '2024-12-31T23:00:00.000Z',
          startedAt: expect.any(String),
          source: 'backfill',
          createdBy: expect.objectContaining({ type: 'api_key', id: tenant.keyPrefix, role: 'admin' }),
        }),
      }),
    );

    // Roles: a viewer reads, cannot write; a client key does neither.
    expect((await call('GET', '/v1/schedules', viewer)).status).toBe(200);
    expect((await call('GET', `/v1/schedules/${id}/preview`, viewer)).status).toBe(200);
    const refused = await call('POST', `/v1/schedules/${id}/pause`, viewer, {});
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect((await stack.cli(['schedules', 'trigger', id], { HUB_URL: stack.url, HUB_API_KEY: viewer })).code).toBe(1);
    expect((await call('GET', '/v1/schedules', client)).status).toBe(403);
    // Bad input and unknown ids.
    const bad = await call('POST', '/v1/schedules', tenant.apiKey, { name: 'x', cron: 'every day', run: { prompt: 'p' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual(expect.objectContaining({ code: 'INVALID_COMMAND', detail: expect.stringContaining('every day') }));
    expect((await call('POST', '/v1/schedules', tenant.apiKey, { name: 'x', cron: '* * * * *', intervalMs: 1000, run: { prompt: 'p' } })).status).toBe(400);
    expect((await call('POST', '/v1/schedules', tenant.apiKey, { name: 'x', intervalMs: 5000, timeZone: 'Mars/Olympus', run: { prompt: 'p' } })).status).toBe(
      400,
    );
    expect((await call('POST', '/v1/schedules/sch-nope/trigger', tenant.apiKey)).status).toBe(404);
    // Another tenant does not see it.
    const other = await stack.createTenant('other');
    expect((await call('GET', `/v1/schedules/${id}`, other.apiKey)).status).toBe(404);

    const admin = await stack.streamEvents(tenant.tenantId, 'tenant-admin');
    const changes = admin.filter((e) => e.type.startsWith('Schedule'));
    expect(changes.map((e) => e.type)).toEqual([
      'ScheduleSaved',
      'ScheduleSaved',
      'SchedulePaused',
      'ScheduleRunsRequested',
      'ScheduleResumed',
      'ScheduleRunsRequested',
      'ScheduleRunsRequested',
    ]);
    expect(changes[2]?.data).toEqual({ scheduleId: id, note: 'holiday freeze' });
    expect((changes[2] as unknown as { metadata: { actor: unknown } }).metadata.actor).toEqual(
      expect.objectContaining({ type: 'api_key', id: tenant.keyPrefix }),
    );

    const list = await hub(['list']);
    expect(JSON.parse(list.stdout.trim().split('\n')[0] as string)).toEqual(
      expect.objectContaining({ id, lastRun: expect.objectContaining({ outcome: 'started' }) }),
    );
    expect((await hub(['delete', id])).code).toBe(0);
    expect((await call('GET', `/v1/schedules/${id}`, tenant.apiKey)).status).toBe(404);
  });
});

describe('overlap policies', () => {
  it('skip drops ticks while a run runs, buffer_one runs one afterwards, allow_all overlaps; each recorded', async () => {
    const make = async (overlap: string) =>
      (
        await json<{ id: string }>(
          'POST',
          '/v1/schedules',
          { name: overlap, intervalMs: 1000, overlap, catchUpWindowMs: 5000, run: { prompt: 'long answer 60', sessionPattern: `${overlap}-{ms}` } },
          201,
        )
      ).id;
    const ids = { skip: await make('skip'), buffer_one: await make('buffer_one'), allow_all: await make('allow_all') };
    await sleep(5_500);
    for (const id of Object.values(ids)) await json('POST', `/v1/schedules/${id}/pause`, { note: 'enough' }, 200);
    await waitFor(
      'every run to end',
      async () => {
        for (const id of Object.values(ids)) if ((await turnsOf(id)).some((t) => !t.ended)) return false;
        return true;
      },
      60_000,
    );

    // skip: some ticks skipped for overlap; no two runs overlap.
    const skip = await ticksOf(ids.skip);
    expect(skip.filter((t) => t.outcome === 'skipped' && t.reason === 'overlap').length).toBeGreaterThanOrEqual(2);
    expect(skip.some((t) => t.outcome === 'buffered')).toBe(false);
    const skipRuns = await turnsOf(ids.skip);
    expect(skipRuns.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < skipRuns.length; i++)
      expect((skipRuns[i] as { requested: Date }).requested.getTime()).toBeGreaterThanOrEqual((skipRuns[i - 1]?.ended as Date).getTime());
    const facts = await stack.streamEvents(tenant.tenantId, `schedule-${ids.skip}`);
    expect(facts.filter((e) => e.type === 'ScheduleTicksSkipped' && e.data.reason === 'overlap').reduce((n, e) => n + Number(e.data.count), 0)).toBe(
      skip.filter((t) => t.outcome === 'skipped').length,
    );

    // buffer_one: one tick waited and started once the run before it ended; the rest skipped.
    const buffered = await ticksOf(ids.buffer_one);
    const waited = buffered.filter((t) => t.outcome === 'started' && t.started_at && t.started_at.getTime() - t.scheduled_at.getTime() > 1_000);
    expect(waited.length).toBeGreaterThanOrEqual(1);
    expect(buffered.some((t) => t.outcome === 'skipped' && t.reason === 'overlap')).toBe(true);
    const bufferRuns = await turnsOf(ids.buffer_one);
    for (let i = 1; i < bufferRuns.length; i++)
      expect((bufferRuns[i] as { requested: Date }).requested.getTime()).toBeGreaterThanOrEqual((bufferRuns[i - 1]?.ended as Date).getTime());
    expect((await stack.streamEvents(tenant.tenantId, `schedule-${ids.buffer_one}`)).some((e) => e.type === 'ScheduleTickBuffered')).toBe(true);

    // allow_all: every tick started; runs overlap.
    const all = await ticksOf(ids.allow_all);
    expect(all.every((t) => t.outcome === 'started')).toBe(true);
    const allRuns = await turnsOf(ids.allow_all);
    expect(allRuns.length).toBe(all.length);
    expect(allRuns.some((r, i) => i > 0 && r.requested.getTime() < (allRuns[i - 1]?.ended as Date).getTime())).toBe(true);

    // One turn per started tick, on every schedule.
    for (const id of Object.values(ids)) {
      const runs = await turnsOf(id);
      expect(runs.every((r) => r.n === 1)).toBe(true);
      expect(runs.length).toBe((await ticksOf(id)).filter((t) => t.outcome === 'started').length);
    }
  });
});

describe('downtime of every ticker', () => {
  it('longer than the catch-up window: the old ticks are recorded as missed; shorter: they run', async () => {
    const make = async (name: string, catchUpWindowMs: number) =>
      (
        await json<{ id: string }>(
          'POST',
          '/v1/schedules',
          { name, intervalMs: 1000, overlap: 'allow_all', catchUpWindowMs, run: { prompt: 'hi', sessionPattern: `${name}-{ms}` } },
          201,
        )
      ).id;
    const short = await make('window-2s', 2_000);
    const long = await make('window-30s', 30_000);
    await sleep(1_500);
    await ticker.kill('SIGKILL');
    const down = Date.now();
    await sleep(6_000);
    ticker = await startTicker();
    const up = Date.now();
    await sleep(1_500);
    for (const id of [short, long]) await json('POST', `/v1/schedules/${id}/pause`, {}, 200);

    const during = (ts: Tick[]) => ts.filter((t) => t.scheduled_at.getTime() > down + 1_000 && t.scheduled_at.getTime() < up - 2_500);
    const missed = (await ticksOf(short)).filter((t) => t.outcome === 'missed');
    expect(missed.length).toBeGreaterThanOrEqual(3);
    expect(missed.every((t) => t.reason === 'catch_up_window')).toBe(true);
    expect(during(await ticksOf(short)).every((t) => t.outcome === 'missed')).toBe(true);
    // The newest ticks of the downtime (within the window) ran.
    expect((await ticksOf(short)).some((t) => t.outcome === 'started' && t.scheduled_at.getTime() > up - 2_500 && t.scheduled_at.getTime() < up)).toBe(true);
    const facts = await stack.streamEvents(tenant.tenantId, `schedule-${short}`);
    expect(facts.filter((e) => e.type === 'ScheduleTicksSkipped' && e.data.reason === 'catch_up_window').reduce((n, e) => n + Number(e.data.count), 0)).toBe(
      missed.length,
    );

    // The metric: the restarted ticker counted what it found missed.
    const metrics = await (await fetch(`${tickerUrl}/metrics`)).text();
    const missedMetric = [...metrics.matchAll(/^hub_schedule_ticks_total\{[^}]*outcome="missed"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(missedMetric).toBe(missed.length);
    const longTicks = await ticksOf(long);
    expect(longTicks.some((t) => t.outcome === 'missed')).toBe(false);
    expect(during(longTicks).length).toBeGreaterThanOrEqual(3);
    expect(during(longTicks).every((t) => t.outcome === 'started')).toBe(true);
    // No tick of the downtime is lost: every second from before the kill to after the restart is decided.
    const seconds = longTicks.map((t) => t.scheduled_at.getTime() / 1000);
    for (let s = seconds[0] as number; s <= (seconds.at(-1) as number); s++) expect(seconds).toContain(s);
    await waitFor('the runs to be requested', async () => (await turnsOf(long)).length === longTicks.filter((t) => t.outcome === 'started').length);
  });
});

describe('the same path as any other turn', () => {
  it("a tenant's limits refuse ticks (recorded as refused), and the approval policy stops a risky tool", async () => {
    const limited = await stack.createTenant('limited');
    const as = (method: string, path: string, body?: unknown) => call(method, path, limited.apiKey, body);
    expect((await as('PUT', '/v1/admin/limits', { turnsPerMinute: 2 })).status).toBe(200);
    const created = (await (
      await as('POST', '/v1/schedules', {
        name: 'writer',
        intervalMs: 1000,
        overlap: 'allow_all',
        run: { prompt: 'write "x" to x.txt', sessionPattern: 'w-{ms}' },
      })
    ).json()) as { id: string };
    await waitFor('four ticks', async () => (await ticksOf(created.id)).length >= 4);
    expect((await as('POST', `/v1/schedules/${created.id}/pause`, {})).status).toBe(200);
    const ticks = await ticksOf(created.id);
    const started = ticks.filter((t) => t.outcome === 'started');
    const refused = ticks.filter((t) => t.outcome === 'refused');
    expect(started).toHaveLength(2);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused.every((t) => t.reason?.startsWith('RATE_LIMITED'))).toBe(true);
    const facts = await stack.streamEvents(limited.tenantId, `schedule-${created.id}`);
    expect(facts.filter((e) => e.type === 'ScheduleTicksSkipped' && e.data.reason === 'refused').reduce((n, e) => n + Number(e.data.count), 0)).toBe(
      refused.length,
    );
    // Each started run asks for approval before it writes, as any turn of the tenant would.
    for (const t of started) {
      await waitFor(`the approval of ${t.session_id}`, async () =>
        (await stack.events(limited.tenantId, t.session_id as string)).some((e) => e.type === 'ApprovalRequested'),
      );
    }
  });
});
