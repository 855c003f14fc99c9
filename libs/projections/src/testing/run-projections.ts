/**
 * A projection runner as a process of its own, for tests that kill it (`kill -9` mid-batch).
 *
 *   node -r @swc-node/register run-projections.ts DATABASE_URL [--batch 50] [--hold-ms 0]
 *
 * Prints `{"msg":"in batch","projection":NAME}` on stderr inside a batch's transaction before
 * its COMMIT (then holds it `--hold-ms`), and `{"msg":"batch","projection","position"}` after.
 */
import { parseArgs } from 'node:util';
import { createPool } from '@hub/event-store';
import { HUB_PROJECTIONS, ProjectionRunner } from '../index';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { batch: { type: 'string', default: '50' }, 'hold-ms': { type: 'string', default: '0' } },
});
const url = positionals[0];
const holdMs = Number(values['hold-ms']);
const say = (o: Record<string, unknown>) => process.stderr.write(`${JSON.stringify(o)}\n`);
const pool = createPool(url, { max: 6 });
const runner = new ProjectionRunner(pool, HUB_PROJECTIONS, {
  connectionString: url,
  batchSize: Number(values.batch),
  standbyPollMs: 100,
  beforeCommit: async (projection) => {
    say({ msg: 'in batch', projection });
    if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
  },
  onBatch: (b) => say({ msg: 'batch', projection: b.projection, position: b.events[b.events.length - 1].globalPosition }),
  log: (message, error) => say({ msg: message, error: error ? String(error) : undefined }),
});
void runner.start().then(() => say({ msg: 'runner started' }));
process.on(
  'SIGTERM',
  () =>
    void runner
      .stop()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
