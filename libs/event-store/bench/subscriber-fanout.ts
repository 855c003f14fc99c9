// Prints what one commit costs the EventSubscriber as subscriptions grow: queries per commit
// and commit-to-delivery latency. Run against a scratch database on the local server:
//   node -r @swc-node/register libs/event-store/bench/subscriber-fanout.ts [admin-url]
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { EventStore, EventSubscriber, migrate } from '../src';

const ADMIN = process.argv[2] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN });
  await c.connect();
  await c.query(sql);
  await c.end();
}

async function run(subscriptions: number, tenants: number, commits: number, url: string): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 10 });
  let queries = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (...args: unknown[]) => {
    queries++;
    return query(...args);
  };
  const storePool = new Pool({ connectionString: url, max: 4 });
  const store = new EventStore(storePool);
  const subscriber = new EventSubscriber(pool, { connectionString: url });
  await subscriber.start();
  const tenantIds = Array.from({ length: tenants }, () => randomUUID());
  const sent = new Map<number, number>();
  const latencies: number[] = [];
  let delivered = 0;
  for (let i = 0; i < subscriptions; i++) {
    subscriber.subscribe({ tenantId: tenantIds[i % tenants], after: 0 }, (events) => {
      for (const e of events) {
        delivered++;
        const t0 = sent.get(e.globalPosition);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
      }
    });
  }
  await new Promise((r) => setTimeout(r, 300));
  const before = queries;
  const expected = Math.floor(subscriptions / tenants);
  for (let i = 0; i < commits; i++) {
    const t0 = performance.now();
    const r = await store.append(tenantIds[i % tenants], 's', [{ type: 'T', data: { i }, metadata: { correlationId: 'b' } }], {
      expectedVersion: 'any',
    });
    sent.set(r.events[0].globalPosition, t0);
    while (delivered < (i + 1) * expected) await new Promise((res) => setImmediate(res));
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(2);
  console.log(
    `${String(subscriptions).padStart(5)} subs / ${String(tenants).padStart(3)} tenants: ` +
      `${((queries - before) / commits).toFixed(2)} subscriber queries per commit, ` +
      `delivery latency p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`,
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
    for (const [subs, tenants] of [
      [1, 1],
      [100, 10],
      [1000, 100],
      [5000, 100],
    ]) {
      await run(subs, tenants, 200, url.toString());
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
