// Runs one prompt in a session and exits with how its turn ended: a step for a CI pipeline.
//
//   HUB_URL=http://127.0.0.1:8080 HUB_API_KEY=hub_… examples/run run-session SESSION PROMPT…
//
// Prints the turn's answer on stdout. Exit 0: the turn completed (or was cancelled); 1: it failed
// (its error on stderr); 2: bad usage; 3: no hub, or the hub refused the key; 4: the turn did not
// end within RUN_TIMEOUT_MS (default 300000), e.g. because an approval waits for someone.
import { HubClient, HubError, HubUnreachableError } from '@harness-hub/client';

async function main([sessionId, ...words]: string[]): Promise<number> {
  const prompt = words.join(' ');
  if (!sessionId || !prompt) return usage('run-session SESSION PROMPT…');
  const hub = new HubClient({ baseUrl: process.env['HUB_URL'] ?? 'http://127.0.0.1:8080', apiKey: process.env['HUB_API_KEY'] ?? '' });
  const { turnId, outcome, state } = await hub.sessions.run(sessionId, prompt, { timeoutMs: Number(process.env['RUN_TIMEOUT_MS'] ?? 300_000) });
  const answer = state.messages.filter((m) => m.turnId === turnId && m.role === 'assistant').pop();
  process.stdout.write(`${answer?.content ?? ''}\n`);
  if (outcome === 'ok') return 0;
  process.stderr.write(`turn ${turnId} failed: ${state.error ?? 'no error recorded'}\n`);
  return 1;
}

function usage(line: string): number {
  process.stderr.write(`usage: ${line}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`run-session: ${e instanceof Error ? e.message : String(e)}\n`);
    if (e instanceof HubUnreachableError) process.exit(3);
    if (e instanceof HubError && e.code === 'timeout') process.exit(4);
    process.exit(e instanceof HubError && (e.status === 401 || e.status === 403) ? 3 : 1);
  },
);
