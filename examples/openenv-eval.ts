// An evaluation loop over an OpenEnv environment of the hub: configure it, run one episode per
// task (reset, then one step), print each reward and the mean.
//
//   HUB_URL=http://127.0.0.1:8080 HUB_API_KEY=hub_… examples/run openenv-eval [ENV]
//
// The environment (default `arith`) uses the built-in agent and the `expected_answer` rubric: a
// step scores 1 when the answer contains 42, else 0. Configuring it needs an admin key. One JSON
// line per episode on stdout, then `{"episodes", "mean"}`; exit 1 when a request fails.
import { HubClient } from '@harness-hub/client';

const TASKS = ['calculate 6 * 7', 'what is 40 + 2', 'say hello'];

interface StepAnswer {
  observation: { response: string; episode_id: string; status: string };
  reward: number | null;
  done: boolean;
}

async function main(env: string): Promise<number> {
  const hub = new HubClient({ baseUrl: process.env['HUB_URL'] ?? 'http://127.0.0.1:8080', apiKey: process.env['HUB_API_KEY'] ?? '' });
  const base = `/v1/openenv/${encodeURIComponent(env)}`;
  await hub.request('PUT', base, { body: { description: 'arithmetic, scored against 42', rubric: { kind: 'expected_answer', expected: '42' }, max_turns: 1 } });
  const rewards: number[] = [];
  for (const task of TASKS) {
    await hub.request('POST', `${base}/reset`, { body: {} });
    const step = await hub.request<StepAnswer>('POST', `${base}/step`, { body: { action: { message: task }, timeout_s: 60 } });
    const reward = step.reward ?? 0;
    rewards.push(reward);
    process.stdout.write(`${JSON.stringify({ episode: step.observation.episode_id, task, status: step.observation.status, reward })}\n`);
  }
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  process.stdout.write(`${JSON.stringify({ episodes: rewards.length, mean: Math.round(mean * 1000) / 1000 })}\n`);
  return 0;
}

main(process.argv[2] ?? 'arith').then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`openenv-eval: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
