/**
 * Projection lag under turn load, and rebuild speed.
 *
 *   node -r @swc-node/register tools/bench/projections.ts [--sessions 20] [--turns 10] [--workers 1] [--events 200000]
 *
 * 1. Lag: a real stack (ingress + N workers, whose runners do the projecting) under the load of
 *    tools/bench/turns.ts (offline model at zero delay, each turn a model call, a tool call and
 *    another model call). This process LISTENs to `hub_events` (one NOTIFY per committed append,
 *    payload its last position) and `hub_projections` (one per committed batch, `name:position`):
 *    an event's lag is from its append's NOTIFY to the first batch commit of each projection
 *    that covers it. Prints p50/p99/max per projection.
 * 2. Rebuild: the workers are stopped, the log is grown to `--events` by copying the load's real
 *    sessions (same event mix) under new session ids, and each projection is rebuilt from zero
 *    in this process. Prints events/s per projection.
 */
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { EventStore, EventSubscriber, createPool } from '@hub/event-store';
import { HUB_PROJECTIONS, rebuildProjection } from '@hub/projections';
import { HubStack, TransportTestClient } from '@hub/testing';
import { pct } from './lib/percentile';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '20' },
    turns: { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    events: { type: 'string', default: '200000' },
  },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);
const NAMES = HUB_PROJECTIONS.map((p) => p.name);

async function oneSession(stack: HubStack, apiKey: string, id: string): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null);
  for (let t = 0; t < TURNS; t++) {
    c.send([{ type: 'submit', prompt: `calculate ${t} + 1` }]);
    await c.waitFor(
      'turn end',
      (x) => x.state?.status === 'idle' && (x.state?.messages.length ?? 0) >= (t + 1) * 2 && x.lastAssistant()?.status === 'complete',
      60_000,
    );
  }
  await c.close();
}

/** Commit → projected, per projection, from the two NOTIFY channels. */
class LagProbe {
  private readonly client: Client;
  private readonly appended: { position: number; at: number }[] = [];
  private readonly next = new Map<string, number>(NAMES.map((n) => [n, 0]));
  readonly lags = new Map<string, number[]>(NAMES.map((n) => [n, []]));
  /** Baseline: the event store's own live subscription (what a socket waits for), same clock. */
  readonly subscriberLags: number[] = [];
  private subNext = 0;

  constructor(url: string) {
    this.client = new Client({ connectionString: url });
    this.client.on('notification', (m) => this.on(m.channel, m.payload ?? '', performance.now()));
  }

  async start(): Promise<void> {
    await this.client.connect();
    await this.client.query('LISTEN hub_events');
    await this.client.query('LISTEN hub_projections');
  }

  private on(channel: string, payload: string, now: number): void {
    if (channel === 'hub_events') return void this.appended.push({ position: Number(payload), at: now });
    const [name, pos] = payload.split(':');
    const position = Number(pos);
    let i = this.next.get(name);
    if (i === undefined) return;
    const lags = this.lags.get(name) as number[];
    while (i < this.appended.length && this.appended[i].position <= position) lags.push(now - this.appended[i++].at);
    this.next.set(name, i);
  }

  /** Called by an EventSubscriber in this process with each delivered batch's last position. */
  delivered(position: number): void {
    const now = performance.now();
    while (this.subNext < this.appended.length && this.appended[this.subNext].position <= position)
      this.subscriberLags.push(now - this.appended[this.subNext++].at);
  }

  stop(): Promise<void> {
    return this.client.end();
  }
}

async function grow(url: string, tenantId: string, target: number): Promise<number> {
  const pool = createPool(url, { max: 4 });
  const store = new EventStore(pool);
  try {
    const { rows } = await pool.query<{ stream_id: string; type: string; data: unknown; metadata: Record<string, unknown> }>(
      'SELECT stream_id, type, data, metadata FROM events WHERE tenant_id = $1 ORDER BY global_position',
      [tenantId],
    );
    const streams = new Map<string, typeof rows>();
    for (const r of rows) streams.set(r.stream_id, [...(streams.get(r.stream_id) ?? []), r]);
    let total = Number((await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0].n);
    for (let copy = 0; total < target; copy++) {
      for (const [streamId, events] of streams) {
        const copyId = `${streamId}-copy${copy}`;
        for (let i = 0; i < events.length; i += 500) {
          const chunk = events.slice(i, i + 500).map((e) => ({ type: e.type, data: e.data, metadata: e.metadata as never }));
          await store.append(tenantId, copyId, chunk, { expectedVersion: 'any' });
        }
        total += events.length;
        if (total >= target) break;
      }
    }
    return total;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const stack = await HubStack.start({
    label: 'benchproj',
    workers: Number(values.workers),
    workerEnv: { HUB_OFFLINE_DELAY_MS: '0', HUB_WORKER_CONCURRENCY: '16' },
  });
  try {
    const { apiKey, tenantId } = await stack.createTenant('bench');
    await oneSession(stack, apiKey, 'warmup');
    const probe = new LagProbe(stack.databaseUrl);
    await probe.start();
    const subPool = createPool(stack.databaseUrl, { max: 2 });
    const subscriber = new EventSubscriber(subPool);
    await subscriber.start();
    const head = await subscriber.headPosition(tenantId);
    subscriber.subscribe({ tenantId, after: head }, (events) => probe.delivered(events[events.length - 1].globalPosition));
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, (_, i) => oneSession(stack, apiKey, `s${i}`)));
    const secs = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 500));
    await probe.stop();
    await subscriber.close();
    await subPool.end();
    process.stdout.write(`load: ${SESSIONS} sessions x ${TURNS} turns, ${((SESSIONS * TURNS) / secs).toFixed(1)} turns/s, workers=${values.workers}\n`);
    for (const [name, lags] of probe.lags) {
      process.stdout.write(
        `lag ${name.padEnd(9)} appends=${lags.length}  p50=${pct(lags, 50).toFixed(1)} ms  p99=${pct(lags, 99).toFixed(1)} ms  max=${Math.max(...lags).toFixed(1)} ms\n`,
      );
    }
    const sl = probe.subscriberLags;
    process.stdout.write(
      `baseline: event-store live subscription  p50=${pct(sl, 50).toFixed(1)} ms  p99=${pct(sl, 99).toFixed(1)} ms (same appends, same clock)\n`,
    );

    await Promise.all(stack.workers.map((w) => w.kill()));
    const total = await grow(stack.databaseUrl, tenantId, Number(values.events));
    const pool = createPool(stack.databaseUrl, { max: 4 });
    try {
      const mix = await pool.query<{ type: string; n: string }>('SELECT type, count(*)::text AS n FROM events GROUP BY type ORDER BY count(*) DESC LIMIT 4');
      process.stdout.write(`rebuild over ${total} events (top types: ${mix.rows.map((r) => `${r.type} ${r.n}`).join(', ')})\n`);
      for (const def of HUB_PROJECTIONS) {
        const r = await rebuildProjection(pool, def, { connectionString: stack.databaseUrl });
        process.stdout.write(
          `rebuild ${def.name.padEnd(9)} ${r.events} events in ${r.ms} ms = ${Math.round(r.events / (r.ms / 1000))} events/s (ran ${r.ranBy})\n`,
        );
      }
    } finally {
      await pool.end();
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
    process.exit(1);
  },
);
