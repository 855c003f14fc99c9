import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { sessionStreamId, type Actor, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { CommandHandler } from '@hub/sessions';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { Schedules } from './schedules';
import { ScheduleTicker, scheduleActor, type ScheduledTurnRequest, type TurnSubmitter } from './ticker';

// The ticker on a real Postgres with the real command handler deciding each tick's SubmitTurn
// (only the runTurn job is left out: no worker here). The clock is injected: three tickers pass
// over the same instants at once; a ticker dies between its submit and its commit; a ticker
// comes back after downtime longer than the catch-up window.

let db: TestDatabase;
let pool: Pool;
let owner: Pool;
let store: EventStore;
const by: Actor = { type: 'api_key', id: 'hub_test', name: 'test', role: 'operator' };

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'schedule_ticker' });
  pool = new Pool({ connectionString: db.url, max: 8 });
  owner = new Pool({ connectionString: db.ownerUrl, max: 2 });
  store = new EventStore(pool);
});
afterAll(async () => {
  await Promise.all([pool.end(), owner.end()]);
  await db.drop();
});

/** Submits as ingress does: the command handler decides against the log, the command id is the idempotency key. */
function realSubmitter(): TurnSubmitter & { calls: number } {
  const handler = new CommandHandler(
    { readStream: (t, s, o) => store.readStream<HubEvent>(t, s, o), append: (t, s, e, o) => store.append<HubEvent>(t, s, e as never, o) },
    { scheduleTurn: async () => undefined, signalCancel: async () => undefined },
  );
  const s = {
    calls: 0,
    async submit(req: ScheduledTurnRequest) {
      s.calls++;
      const out = await handler.handle(
        { type: 'SubmitTurn', sessionId: req.sessionId, turnId: req.turnId, prompt: req.prompt, context: req.context, busyPolicy: 'enqueue' },
        {
          commandId: req.commandId,
          tenantId: req.tenantId,
          now: req.startedAt.toISOString(),
          actor: scheduleActor(req.scheduleId, req.scheduleName),
          protocol: 'internal',
          correlationId: req.commandId,
        },
      );
      return out.ok ? { ok: true as const } : { ok: false as const, code: out.code, message: out.message };
    },
  };
  return s;
}

const facts = {
  append: (
    t: string,
    s: string,
    e: { type: string; data: unknown; metadata: Record<string, unknown> }[],
    o: { expectedVersion: 'any'; idempotencyKey: string },
  ) => store.append(t, s, e as never, o),
};
const schedules = (clock: () => Date) => new Schedules(pool, async () => undefined, clock);

async function requests(tenantId: string, scheduleId: string): Promise<{ turn_id: string; n: number }[]> {
  const { rows } = await owner.query<{ turn_id: string; n: number }>(
    `SELECT data->>'turnId' AS turn_id, count(*)::int AS n FROM events WHERE tenant_id = $1 AND type = 'TurnRequested' AND data->>'turnId' LIKE $2 GROUP BY 1 ORDER BY 1`,
    [tenantId, `schedule-${scheduleId}-%`],
  );
  return rows;
}

it('three tickers passing over the same instants at once start one turn per tick', async () => {
  const tenant = randomUUID();
  let now = new Date('2026-03-29T00:00:00.500Z');
  const clock = () => now;
  const { schedule } = await schedules(clock).save(
    tenant,
    { name: 'every 2 s', intervalMs: 2_000, overlap: 'allow_all', run: { prompt: 'hi', sessionPattern: 'p-{ms}' } },
    by,
  );
  const submitter = realSubmitter();
  const tickers = [0, 1, 2].map(() => new ScheduleTicker({ pool, submitter, facts, clock }));
  for (let step = 0; step < 10; step++) {
    now = new Date(now.getTime() + 2_000);
    await Promise.all(tickers.map((t) => t.passOnce()));
  }
  const { rows: ticks } = await owner.query<{ outcome: string }>(`SELECT outcome FROM schedule_ticks WHERE schedule_id = $1`, [schedule.id]);
  expect(ticks).toHaveLength(10);
  expect(ticks.every((t) => t.outcome === 'started')).toBe(true);
  const turns = await requests(tenant, schedule.id);
  expect(turns).toHaveLength(10);
  expect(turns.every((t) => t.n === 1)).toBe(true);
  // Each tick was decided by one ticker: the others found it locked or already decided.
  expect(submitter.calls).toBe(10);
});

it('a ticker that dies between its submit and its commit: the next pass submits the same command, and the log keeps one turn', async () => {
  const tenant = randomUUID();
  let now = new Date('2026-03-29T00:00:00.500Z');
  const clock = () => now;
  const { schedule } = await schedules(clock).save(tenant, { name: 'crash', intervalMs: 1_000, run: { prompt: 'hi', sessionId: 'fixed' } }, by);
  const real = realSubmitter();
  // Submits for real, then "dies" before the ticker commits its tick.
  const dying: TurnSubmitter = { submit: async (req) => (await real.submit(req), Promise.reject(new Error('killed after the submit'))) };
  now = new Date(now.getTime() + 1_000);
  const errors: unknown[] = [];
  await new ScheduleTicker({ pool, submitter: dying, facts, clock }).passOnce((e) => errors.push(e));
  expect(errors).toHaveLength(1);
  expect((await owner.query(`SELECT 1 FROM schedule_ticks WHERE schedule_id = $1`, [schedule.id])).rowCount).toBe(0); // rolled back
  await new ScheduleTicker({ pool, submitter: real, facts, clock }).passOnce();
  expect(real.calls).toBe(2);
  expect(await requests(tenant, schedule.id)).toEqual([{ turn_id: `schedule-${schedule.id}-1774742401000`, n: 1 }]);
  const { rows } = await owner.query(`SELECT outcome, turn_id FROM schedule_ticks WHERE schedule_id = $1`, [schedule.id]);
  expect(rows).toEqual([{ outcome: 'started', turn_id: `schedule-${schedule.id}-1774742401000` }]);
  const session = await store.readStream<HubEvent>(tenant, sessionStreamId('fixed'));
  expect(session.events.filter((e) => e.type === 'TurnRequested')).toHaveLength(1);
});

it('after downtime: ticks older than the catch-up window are recorded as missed (with the count), newer ones run', async () => {
  const tenant = randomUUID();
  let now = new Date('2026-10-25T00:00:00.000Z');
  const clock = () => now;
  const { schedule } = await schedules(clock).save(
    tenant,
    { name: 'window', intervalMs: 1_000, overlap: 'allow_all', catchUpWindowMs: 5_000, run: { prompt: 'hi', sessionPattern: 'd-{ms}' } },
    by,
  );
  // Ten minutes with no ticker at all.
  now = new Date(now.getTime() + 600_000);
  await new ScheduleTicker({ pool, submitter: realSubmitter(), facts, clock, keepMissed: 100 }).passOnce();
  const { rows } = await owner.query<{ outcome: string; n: number; first: Date; last: Date }>(
    `SELECT outcome, count(*)::int AS n, min(scheduled_at) AS first, max(scheduled_at) AS last FROM schedule_ticks WHERE schedule_id = $1 GROUP BY 1 ORDER BY 1`,
    [schedule.id],
  );
  // Ticks at +1 s ... +600 s; the window keeps those at or after +595 s.
  expect(rows).toEqual([
    { outcome: 'missed', n: 100, first: new Date('2026-10-25T00:08:15.000Z'), last: new Date('2026-10-25T00:09:54.000Z') },
    { outcome: 'started', n: 6, first: new Date('2026-10-25T00:09:55.000Z'), last: new Date('2026-10-25T00:10:00.000Z') },
  ]);
  const skipped = (await store.readStream(tenant, `schedule-${schedule.id}`)).events;
  expect(skipped.map((e) => [e.type, (e.data as { reason: string; count: number }).reason, (e.data as { count: number }).count])).toEqual([
    ['ScheduleTicksSkipped', 'catch_up_window', 594],
  ]);
  expect(await requests(tenant, schedule.id)).toHaveLength(6);
});
