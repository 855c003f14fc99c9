// Compiled (not run) against the packed package by the client's e2e spec: its declarations
// resolve for a TypeScript user with nodenext module resolution, and the API is typed.
// eslint-disable-next-line @nx/enforce-module-boundaries -- compiled against the packed package, imported as a user imports it
import { HubClient, HubError, type Approval, type HarnessState, type SessionStream } from '@harness-hub/client';

export async function example(hub: HubClient): Promise<string | undefined> {
  const stream: SessionStream = hub.sessions.open('typed');
  const turnId: string = await stream.submit('hello', { idempotencyKey: 'typed-1', busyPolicy: 'enqueue' });
  const state: HarnessState = await stream.waitFor((s) => s.status === 'idle');
  const pending: Approval[] = (await hub.approvals.list({ status: 'pending' })).approvals;
  stream.close();
  return pending.length > 0 && turnId && !(state instanceof HubError) ? state.messages[0]?.content : undefined;
}
