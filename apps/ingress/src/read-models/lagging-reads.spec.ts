import { Pool } from 'pg';
import { LaggingReads } from './lagging-reads';

// HUB_READ_DATABASE_URL: set, the lagging lists get a pool of their own (closed with the app);
// unset, they read from the main pool, which the app closes elsewhere. The standby itself, its
// replay lag and the HAProxy listener are the HA suite's (tools/ha, the standby reads case).

it('reads from the main pool when HUB_READ_DATABASE_URL is unset, and leaves it open', async () => {
  const main = new Pool({ connectionString: 'postgresql://x@127.0.0.1:1/none' });
  const reads = LaggingReads.on(main, { dbPoolSize: 4 });
  expect({ same: reads.pool === main, standby: reads.standby }).toEqual({ same: true, standby: false });
  await reads.onModuleDestroy();
  expect(main.ending).toBe(false);
  await main.end();
});

it('opens a pool of its own on HUB_READ_DATABASE_URL, as large as the main one, and closes it', async () => {
  const main = new Pool({ connectionString: 'postgresql://x@127.0.0.1:1/none' });
  const reads = LaggingReads.on(main, { dbPoolSize: 4, readDatabaseUrl: 'postgresql://hub@standby.example:5433/hub' });
  expect({
    same: reads.pool === main,
    standby: reads.standby,
    max: reads.pool.options.max,
    host: reads.pool.options.host ?? reads.pool.options.connectionString,
  }).toEqual({
    same: false,
    standby: true,
    max: 4,
    host: 'postgresql://hub@standby.example:5433/hub',
  });
  await reads.onModuleDestroy();
  expect(reads.pool.ending).toBe(true);
  await main.end();
});
