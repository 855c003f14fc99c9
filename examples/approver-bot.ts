// Answers the tenant's approvals from the live feed by a rule, until it is stopped (SIGINT/SIGTERM).
//
//   HUB_URL=http://127.0.0.1:8080 HUB_API_KEY=hub_… examples/run approver-bot
//
// The key needs a role that may answer (admin, operator or approver). The rule below approves
// writes under `reports/` and denies everything else, each with a reason the model is told; one
// JSON line per answer on stdout. The feed resumes after its last event across dropped
// connections, and an approval someone else answered first is skipped.
import { HubClient, HubError, type Approval } from '@harness-hub/client';

/** The rule: what to answer, and why. */
function decide(a: Pick<Approval, 'toolName' | 'arguments'>): { decision: 'approved' | 'denied'; reason: string } {
  const path = typeof a.arguments === 'object' && a.arguments !== null ? (a.arguments as { path?: unknown }).path : undefined;
  if (a.toolName === 'write_file' && typeof path === 'string' && path.startsWith('reports/') && !path.includes('..')) {
    return { decision: 'approved', reason: 'writes under reports/ are allowed' };
  }
  return { decision: 'denied', reason: `approver bot: ${a.toolName} is not allowed here` };
}

const hub = new HubClient({ baseUrl: process.env['HUB_URL'] ?? 'http://127.0.0.1:8080', apiKey: process.env['HUB_API_KEY'] ?? '' });
const feed = hub.approvals.feed();
const answered = new Set<string>();

feed.subscribe(({ event, data }) => {
  if (event === 'ready') return void process.stderr.write('approver-bot: watching approvals\n');
  if (event !== 'approval' || data.status !== 'pending' || answered.has(data.approvalId)) return;
  answered.add(data.approvalId);
  const { decision, reason } = decide(data);
  hub.approvals.answer(data.sessionId, data.approvalId, decision, reason).then(
    () => process.stdout.write(`${JSON.stringify({ sessionId: data.sessionId, approvalId: data.approvalId, tool: data.toolName, decision, reason })}\n`),
    (e: unknown) => {
      // Someone else was first: nothing to do. Anything else is said and the bot goes on.
      if (!(e instanceof HubError && e.code === 'APPROVAL_ALREADY_RESOLVED')) process.stderr.write(`approver-bot: ${data.approvalId}: ${String(e)}\n`);
    },
  );
});

let stopped = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => ((stopped = true), feed.close()));
// The feed ends by itself only when the hub refuses it for good (a revoked key) or stays away.
feed.done.then(
  () => (stopped ? process.exit(0) : (process.stderr.write(`approver-bot: the feed ended: ${String(feed.closeError)}\n`), process.exit(1))),
  (e: unknown) => (process.stderr.write(`approver-bot: ${String(e)}\n`), process.exit(1)),
);
