/**
 * A worker killed with -9 while a crowd of turns streams (issue 31): nothing acknowledged is lost
 * and no text is written twice, at a scale the fault suite does not run.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/crowd-kill.ts [--turns 1000] [--kill-after-ms 1500]
 *
 * Starts a real stack at its defaults with two workers (the offline model at its default pace),
 * runs `--turns` fresh sessions of `long answer 100` all at once over the transport WebSocket,
 * kills one worker with SIGKILL once the turns stream and starts another in its place, waits
 * for every client to see its turn end, then reads the log: turns acknowledged (TurnRequested),
 * completed, lost, and turns whose TextDeltas do not tile their final text exactly once.
 */
import { parseArgs } from 'node:util';
import { WorkerConfig } from '@hub/config';
import { HubStack } from '@hub/testing';
import { startPrivateRedis } from './lib/private-redis';
import { streamingLoad } from './lib/streaming-load';

const { values } = parseArgs({ options: { turns: { type: 'string', default: '1000' }, 'kill-after-ms': { type: 'string', default: '1500' } } });
const TURNS = Number(values.turns);

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const stack = await HubStack.start({
    label: 'crowdkill',
    workers: 2,
    workerEnv: { HUB_OFFLINE_DELAY_MS: String(WorkerConfig.parse({}).HUB_OFFLINE_DELAY_MS) },
    redisUrl: redis.url,
  });
  try {
    const { apiKey, tenantId } = await stack.createTenant('crowd');
    const t0 = Date.now();
    const killing = (async () => {
      await new Promise((r) => setTimeout(r, Number(values['kill-after-ms'])));
      const victim = stack.workers[0];
      await victim.kill('SIGKILL');
      process.stderr.write(`worker ${victim.child.pid} killed with -9 at ${Date.now() - t0} ms; starting another\n`);
      await stack.addWorker();
    })();
    const load = await streamingLoad([{ url: stack.url, apiKey }], {
      inFlight: TURNS,
      turns: TURNS,
      timeoutMs: 300_000,
      progress: (ended, failed) => process.stderr.write(`  ${ended} of ${TURNS} ended, ${failed} failed\n`),
    });
    await killing;
    const rows = await stack.query<{ turn_id: string; type: string; text: string | null }>(
      `SELECT data->>'turnId' AS turn_id, type, data->>'text' AS text FROM events
        WHERE tenant_id = $1 AND type IN ('TurnRequested', 'TextDelta', 'TurnCompleted') ORDER BY stream_id, stream_position`,
      [tenantId],
    );
    const deltas = new Map<string, string>();
    const ends = new Map<string, string[]>();
    let acknowledged = 0;
    for (const r of rows) {
      if (r.type === 'TurnRequested') acknowledged++;
      if (r.type === 'TextDelta') deltas.set(r.turn_id, (deltas.get(r.turn_id) ?? '') + (r.text ?? ''));
      if (r.type === 'TurnCompleted') ends.set(r.turn_id, [...(ends.get(r.turn_id) ?? []), r.text ?? '']);
    }
    let duplicated = 0;
    for (const [turn, texts] of ends) if (texts.length !== 1 || deltas.get(turn) !== texts[0]) duplicated++;
    const lines = [
      `crowd kill: ${TURNS} turns of "long answer 100" in flight, 2 workers at their defaults, one killed with -9 at ${values['kill-after-ms']} ms`,
      '',
      '| acknowledged | completed | lost | text written twice or not tiling | client-side failures | p50 / p99 turn time | wall |',
      '|---|---|---|---|---|---|---|',
      `| ${acknowledged} | ${ends.size} | ${acknowledged - ends.size} | ${duplicated} | ${load.failed} | ${(load.p50Ms / 1000).toFixed(1)} / ${(load.p99Ms / 1000).toFixed(1)} s | ${(load.wallMs / 1000).toFixed(1)} s |`,
    ];
    if (load.failures.length) lines.push('', ...load.failures.map((f) => `  - ${f}`));
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stack.stop();
    await redis.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
