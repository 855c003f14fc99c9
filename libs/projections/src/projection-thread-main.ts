// The entry of the projections' worker thread (see projection-thread.ts): runs the hub's
// projections on a pool of its own and reports logs to the parent.
import { parentPort, workerData } from 'node:worker_threads';
import { createPool } from '@hub/event-store';
import { HUB_PROJECTIONS } from './index';
import { PROJECTION_POOL_SIZE } from './connections';
import { ProjectionRunner } from './runner';

const { databaseUrl } = workerData as { databaseUrl: string };
const port = parentPort;
if (!port) throw new Error('projection-thread-main runs only as a worker thread');
const pool = createPool(databaseUrl, { max: PROJECTION_POOL_SIZE });
const runner = new ProjectionRunner(pool, HUB_PROJECTIONS, {
  connectionString: databaseUrl,
  log: (message, error) =>
    port.postMessage({ type: 'log', message, error: error === undefined ? undefined : error instanceof Error ? error.message : String(error) }),
});
runner.start().then(
  () => port.postMessage({ type: 'started' }),
  (e: unknown) => port.postMessage({ type: 'failed', error: e instanceof Error ? e.message : String(e) }),
);
port.on('message', (m: { type?: string }) => {
  if (m.type !== 'stop') return;
  void runner
    .stop()
    .then(() => pool.end())
    .finally(() => port.close());
});
