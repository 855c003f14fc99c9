/**
 * OpenEnv simulation-mode throughput and latency: what a training loop driving the hub sees.
 *
 *   node -r @swc-node/register tools/bench/openenv-steps.ts [--episodes 8] [--steps 10] [--harness builtin,acp,command]
 *
 * Starts a real stack (fresh database, unique queue prefix, one ingress, one worker, the offline
 * model at zero delay), configures one environment per harness kind, and runs `--episodes`
 * episodes at once, each `POST /reset` then `--steps` x `POST /step`, as OpenEnv's HTTP client
 * does. Prints steps per second and p50/p99 of one step (request to the `{observation, reward,
 * done}` answer) per harness kind, the first step of an episode apart: for `acp` and `command`
 * (the test agents in tools/test-harnesses) it includes starting the harness process.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HubStack, testAllowEntry } from '@hub/testing';
import { pct } from './lib/percentile';

const { values } = parseArgs({
  options: {
    episodes: { type: 'string', default: '8' },
    steps: { type: 'string', default: '10' },
    harness: { type: 'string', default: 'builtin,acp,command' },
  },
});
const EPISODES = Number(values.episodes);
const STEPS = Number(values.steps);
const ROOT = path.resolve(__dirname, '../..');

/** How a test agent of ours is started: the interpreter with the TypeScript loader, then the script. */
const agentCommand = (script: string) => [
  process.execPath,
  '-r',
  path.join(ROOT, 'node_modules/@swc-node/register/index.js'),
  path.join(ROOT, 'tools/test-harnesses', script),
];

const HARNESSES: Record<string, () => Record<string, unknown>> = {
  builtin: () => ({ name: 'hub' }),
  acp: () => ({ name: 'acp-test-agent', kind: 'acp', command: agentCommand('acp-test-agent.ts') }),
  command: () => ({ name: 'command-test-agent', kind: 'command', command: agentCommand('command-test-agent.ts') }),
};

async function call(stack: HubStack, apiKey: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.url}/v1/openenv/${route}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function episode(stack: HubStack, apiKey: string, env: string, latencies: number[], first: number[] = []): Promise<void> {
  const { observation } = await call(stack, apiKey, 'POST', `${env}/reset`, {});
  const episodeId = (observation as { metadata?: { episode_id?: string } } | undefined)?.metadata?.episode_id;
  for (let i = 0; i < STEPS; i++) {
    const t0 = performance.now();
    const r = await call(stack, apiKey, 'POST', `${env}/step`, { action: { message: `calculate ${i} + 1` }, ...(episodeId ? { episode_id: episodeId } : {}) });
    (i === 0 ? first : latencies).push(performance.now() - t0);
    if (r.done) break;
  }
}

async function main(): Promise<void> {
  const kinds = values.harness.split(',').filter((k) => k in HARNESSES);
  const allow = kinds.filter((k) => k !== 'builtin').map((k) => testAllowEntry((HARNESSES[k]().command as string[]).slice(0, 4)));
  const env: Record<string, string> = allow.length ? { HUB_HARNESS_COMMANDS: allow.join(';') } : {};
  const stack = await HubStack.start({
    label: 'benchopenenv',
    workers: 1,
    workerEnv: { HUB_OFFLINE_DELAY_MS: '0', HUB_WORKER_CONCURRENCY: '16', ...env },
    ingressEnv: env,
  });
  try {
    const { apiKey } = await stack.createTenant('bench');
    process.stderr.write(`bench: ${EPISODES} concurrent episodes x ${STEPS} steps per harness kind, one worker\n`);
    for (const kind of kinds) {
      await call(stack, apiKey, 'PUT', `bench-${kind}`, { harness: HARNESSES[kind](), max_turns: STEPS + 1 });
      await episode(stack, apiKey, `bench-${kind}`, []); // warm-up: loaders, connections, first process
      // Each episode is its own environment, so episodes run side by side rather than resetting each other.
      await Promise.all(
        Array.from({ length: EPISODES }, (_, i) => call(stack, apiKey, 'PUT', `bench-${kind}-${i}`, { harness: HARNESSES[kind](), max_turns: STEPS + 1 })),
      );
      const latencies: number[] = [];
      const first: number[] = [];
      const t0 = performance.now();
      await Promise.all(Array.from({ length: EPISODES }, (_, i) => episode(stack, apiKey, `bench-${kind}-${i}`, latencies, first)));
      const secs = (performance.now() - t0) / 1000;
      const steps = latencies.length + first.length;
      console.log(
        `${kind.padEnd(8)} ${(steps / secs).toFixed(1).padStart(6)} steps/s   first step p50 ${pct(first, 50).toFixed(1)} ms   later steps p50 ${pct(latencies, 50).toFixed(1)} ms  p99 ${pct(latencies, 99).toFixed(1)} ms   (${steps} steps)`,
      );
    }
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
