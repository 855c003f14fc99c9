import { TransportTestClient, hubJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';
import { RolesWorld } from './roles-world';

// Issue 16, beside the role matrix (roles-matrix.ts): a client key's view of another key's
// session is the view of a session that does not exist, answer for answer; a session a client
// key opened over ACP is its own from `session/new`, before its first prompt; and every event a
// key caused names the key and its role.

jest.setTimeout(120_000);

let world: RolesWorld;
beforeAll(async () => {
  world = await RolesWorld.start('roles');
});
afterAll(() => world?.stack.stop());

/** An answer with the id it names taken out: what is left must not tell the two ids apart. */
const without = (answer: unknown, id: string) => JSON.parse(JSON.stringify(answer).split(id).join('<id>')) as unknown;

it("to a client key another key's session answers exactly as one that does not exist, on every surface", async () => {
  const theirs = await world.idleSession(world.keys.operator);
  const missing = world.fresh('never');
  const key = world.keys.client;
  const answers = async (id: string) => {
    const http = await Promise.all(
      ['state', 'events', 'turns', 'export'].map(async (what) => {
        const res = await fetch(`${world.url}/v1/sessions/${id}/${what}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await res.json()) as Record<string, unknown>;
        return { status: res.status, code: body['code'], detail: body['detail'] };
      }),
    );
    const acp = AcpSdkClient.ws(world.url, key);
    await acp.request('initialize', { protocolVersion: 1 });
    const rpc = await Promise.all([
      acp.request('session/load', { sessionId: id, cwd: '/', mcpServers: [] }).catch((e: unknown) => e),
      acp.request('session/resume', { sessionId: id, cwd: '/' }).catch((e: unknown) => e),
      acp.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'hello' }] }).catch((e: unknown) => e),
      acp.request('session/cancel', { sessionId: id }).catch((e: unknown) => e),
    ]);
    await acp.close();
    return without({ http, rpc }, id);
  };
  expect(await answers(theirs)).toEqual(await answers(missing));
});

it('a session a client key opened over ACP is its own before its first prompt: another client key cannot take it', async () => {
  const second = String((await hubJson('POST', `${world.url}/v1/admin/keys`, world.keys.admin, { name: 'client-2', role: 'client' })).body['apiKey']);
  const mine = AcpSdkClient.ws(world.url, world.keys.client);
  await mine.request('initialize', { protocolVersion: 1 });
  const { sessionId } = await mine.request<{ sessionId: string }>('session/new', { cwd: '/mine', mcpServers: [] });
  const other = AcpSdkClient.ws(world.url, second);
  await other.request('initialize', { protocolVersion: 1 });
  const listed = await other.request<{ sessions: { sessionId: string }[] }>('session/list', {});
  expect(listed.sessions.map((s) => s.sessionId)).not.toContain(sessionId);
  await expect(other.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'mine now' }] })).rejects.toEqual(
    expect.objectContaining({ code: -32002 }),
  );
  await other.close();
  expect(await world.stack.events(world.tenantId, sessionId)).toEqual([]);
  // Its own key goes on as usual.
  expect((await mine.request<{ sessions: { sessionId: string }[] }>('session/list', {})).sessions.map((s) => s.sessionId)).toContain(sessionId);
  await mine.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
  await mine.close();
});

it('every event a key caused names the key and its role', async () => {
  const id = await world.idleSession(world.keys.client);
  const requested = (await world.stack.events(world.tenantId, id)).find((e) => e.type === 'TurnRequested');
  expect(requested?.metadata.actor).toEqual({ type: 'api_key', id: world.prefixes.client, name: 'client', role: 'client' });
  // An approval answered by an approver key says so too.
  const { session, approvalId } = await world.pendingApproval(world.keys.operator);
  const c = await TransportTestClient.connect(world.url, world.keys.approver, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'approve', approvalId }]);
  await c.waitFor('the answer', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'approved');
  await c.close();
  const resolved = (await world.stack.events(world.tenantId, session)).find((e) => e.type === 'ApprovalResolved');
  expect(resolved?.metadata.actor).toEqual({ type: 'api_key', id: world.prefixes.approver, name: 'approver', role: 'approver' });
  await world.settle(session);
});

it('a client key watching an id before anyone opens it sees nothing of the session another key opens there', async () => {
  const id = world.fresh('prewatch');
  const watcher = await TransportTestClient.connect(world.url, world.keys.client, { session: id });
  await watcher.waitFor('the empty snapshot', (x) => x.state !== null);
  // Another key opens the id and runs a turn in it.
  const owner = await TransportTestClient.connect(world.url, world.keys.operator, { session: id });
  await owner.waitFor('snapshot', (x) => x.state !== null);
  owner.send([{ type: 'submit', prompt: 'read notes.txt' }]);
  await owner.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await owner.close();
  // The watcher is told the session does not exist (as at connect) and is closed, with none of it.
  await watcher.waitFor('closed', (x) => x.closeCode !== null);
  expect(watcher.closeCode).toBe(1008);
  expect(watcher.errors().map((e) => e.code)).toEqual(['session_not_found']);
  expect(watcher.state?.messages ?? []).toEqual([]);
  expect(JSON.stringify(watcher.frames)).not.toContain('notes.txt');
});

it('two client keys opening one new id at once: one opens it, the other is told it does not exist, nothing of it lands in the session', async () => {
  const second = await hubJson('POST', `${world.url}/v1/admin/keys`, world.keys.admin, { name: 'second-client', role: 'client' });
  const keys = { [world.prefixes.client]: world.keys.client, [String(second.body['prefix'])]: String(second.body['apiKey']) };
  for (let round = 0; round < 8; round++) {
    const id = world.fresh('race');
    const clients = await Promise.all(Object.values(keys).map((key) => TransportTestClient.connect(world.url, key, { session: id })));
    await Promise.all(clients.map((c) => c.waitFor('the empty snapshot', (x) => x.state !== null)));
    // Both submits leave at once: both access checks may see an id nobody has opened.
    for (const c of clients) c.send([{ type: 'submit', prompt: `round ${round}` }]);
    await Promise.all(
      clients.map((c) =>
        c.waitFor(
          'an answer or a refusal',
          (x) => x.errors().length > 0 || x.closeCode !== null || (x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete'),
        ),
      ),
    );
    await Promise.all(clients.map((c) => c.close()));
    const events = await world.stack.events(world.tenantId, id);
    const opener = events[0].metadata.actor as { id: string };
    // Every request in the session is its opener's: the other key's submit appended nothing there.
    const requesters = events.filter((e) => e.type === 'TurnRequested').map((e) => (e.metadata.actor as { id: string }).id);
    expect([round, requesters]).toEqual([round, [opener.id]]);
    expect(Object.keys(keys)).toContain(opener.id);
  }
});
