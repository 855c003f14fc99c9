// What one commit costs the EventSubscriber when it follows many streams, each with a
// subscription of its own (every watcher socket of every session): delivery latency and this
// process's CPU per commit, the append included. A wake costs the page plus the subscriptions
// its events match (issue 31), so it should not grow with the subscriptions.
//   node -r @swc-node/register libs/event-store/bench/subscriber-streams.ts [admin-url]
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { EventStore, EventSubscriber, migrate } from '../src';

const ADMIN = process.argv[2] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const COMMITS = 300;

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN });
  await c.connect();
  await c.query(sql);
  await c.end();
}

async function run(subscriptions: number, url: string): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 10 });
  const storePool = new Pool({ connectionString: url, max: 4 });
  const store = new EventStore(storePool);
  const subscriber = new EventSubscriber(pool, { connectionString: url });
  await subscriber.start();
  const tenant = randomUUID();
  const sent = new Map<number, number>();
  const latencies: number[] = [];
  let delivered = 0;
  for (let i = 0; i < subscriptions; i++) {
    subscriber.subscribe({ tenantId: tenant, streamId: `s${i}`, after: 0 }, (events) => {
      for (const e of events) {
        delivered++;
        const t0 = sent.get(e.globalPosition);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
      }
    });
  }
  await new Promise((r) => setTimeout(r, 1500));
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < COMMITS; i++) {
    const t0 = performance.now();
    const r = await store.append(tenant, `s${i % subscriptions}`, [{ type: 'T', data: { i }, metadata: { correlationId: 'b' } }], { expectedVersion: 'any' });
    sent.set(r.events[0].globalPosition, t0);
    while (delivered < i + 1) await new Promise((res) => setImmediate(res));
  }
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(2);
  console.log(
    `${String(subscriptions).padStart(6)} stream subscriptions: delivery p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; ` +
      `CPU ${((cpu.user + cpu.system) / 1000 / COMMITS).toFixed(2)} ms per commit (the append included)`,
  );
  await subscriber.close();
  await Promise.all([pool.end(), storePool.end()]);
}

async function main(): Promise<void> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  try {
    await migrate(url.toString(), { migrationsDir: resolve(__dirname, '../../../prisma/migrations') });
    for (const n of [100, 10_000]) await run(n, url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
