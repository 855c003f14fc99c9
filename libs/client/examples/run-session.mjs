// Runs one prompt in a session and exits non-zero when the turn fails: what a CI pipeline does
// with the hub. Run with HUB_URL and HUB_API_KEY set:
//
//   node run-session.mjs [SESSION] [PROMPT]
import { HubClient, HubError, Webhook } from '@harness-hub/client';

const hub = new HubClient({ baseUrl: process.env.HUB_URL ?? 'http://localhost:8080', apiKey: process.env.HUB_API_KEY ?? '' });
const [session = `example-${Date.now()}`, prompt = 'read notes.txt'] = process.argv.slice(2);

try {
  const { turnId, outcome, state } = await hub.sessions.run(session, prompt, { timeoutMs: 60_000 });
  const answer = state.messages.filter((m) => m.role === 'assistant' && m.turnId === turnId).pop();
  const { events } = await hub.sessions.events(session, { limit: 1 });
  console.log(JSON.stringify({ session, turnId, outcome, answer: answer?.content ?? '', firstEvent: events[0]?.type, verifier: typeof Webhook }));
  process.exit(outcome === 'ok' ? 0 : 1);
} catch (e) {
  console.error(e instanceof HubError ? `hub refused: ${e.code}: ${e.message}` : String(e));
  process.exit(2);
}
