import { StreamResponse, TaskState, type Message, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { HubStack, WebhookReceiver, type Received } from '@hub/testing';
import { a2aClient, sendParams, sendTask, stateOf, userMessage } from '../a2a/testing/a2a-sdk';

// A2A push notifications (issue 27 with issue 28's delivery) against real ingress and worker
// processes, driven by the real @a2a-js/sdk client: configs are set, read, listed and deleted
// over JSON-RPC and kept in the log; the worker's push outbox POSTs each task update (the A2A
// `StreamResponse`) to a real HTTP receiver on loopback, with the client's token, retried on the
// webhook schedule. Loopback is allowed here explicitly (HUB_WEBHOOK_ALLOWED_NETWORKS), as in
// webhooks.e2e.spec.ts; the metadata address stays refused.

jest.setTimeout(120_000);

const LOOPBACK = { HUB_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
let stack: HubStack;
let receiver: WebhookReceiver;
let tenant: { tenantId: string; apiKey: string };
let client: Client;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  stack = await HubStack.start({ label: 'a2a_push', workers: 0, ingressEnv: LOOPBACK });
  await stack.addWorker({
    ...LOOPBACK,
    HUB_WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
    HUB_WEBHOOK_POLL_MS: '50',
    HUB_WEBHOOK_TIMEOUT_MS: '2000',
    HUB_OFFLINE_DELAY_MS: '2',
    HUB_APPROVAL_TTL_MS: '600000',
  });
  tenant = await stack.createTenant('acme');
  client = await a2aClient(stack.url, tenant.apiKey);
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function until<T>(what: string, f: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each notification at `path`, read back through the SDK's own `StreamResponse.fromJSON`. */
const updatesAt = (path: string) => receiver.at(path).map((r) => ({ r, update: StreamResponse.fromJSON(JSON.parse(r.body)) }));
const statesAt = (path: string) =>
  updatesAt(path)
    .map((u) => stateOf(u.update))
    .filter((s) => s !== undefined);
const pushConfig = (taskId: string, path: string, token: string, id = ''): TaskPushNotificationConfig => ({
  tenant: '',
  id,
  taskId,
  url: receiver.url(path),
  token,
  authentication: undefined,
});
/** `SendMessage` with a push config in its configuration (blocking: until the task ends or asks for input). */
async function sendWithPush(message: Message, config: TaskPushNotificationConfig): Promise<Task> {
  const r = await client.sendMessage({
    ...sendParams(message),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: config, returnImmediately: false },
  });
  if (!('status' in r)) throw new Error(`SendMessage answered a message: ${JSON.stringify(r)}`);
  return r;
}
const approve = (taskId: string, contextId: string) => sendTask(client, sendParams(userMessage('approve', { taskId, contextId })));

describe('push notifications of a task', () => {
  it('a config given with SendMessage: the receiver gets the task’s updates, input-required, then (after the approval) completed, each with the token', async () => {
    const path = '/hook-send';
    const message = userMessage('write "x" to push.txt');
    const asked = await sendWithPush(message, pushConfig('', path, 'tok-send', 'cfg-send'));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await until('input-required at the receiver', () => statesAt(path).includes(TaskState.TASK_STATE_INPUT_REQUIRED));
    await approve(asked.id, asked.contextId);
    await until('completed at the receiver', () => statesAt(path).at(-1) === TaskState.TASK_STATE_COMPLETED);
    const got = updatesAt(path);
    expect(got.every(({ r }) => r.headers['x-a2a-notification-token'] === 'tok-send' && r.headers['content-type'] === 'application/a2a+json')).toBe(true);
    // Every update is of this task, in the log's order, each once (its webhook-id).
    expect(
      got.every(
        ({ update }) =>
          (update.payload?.value as { taskId?: string; id?: string }).taskId === asked.id || (update.payload?.value as { id?: string }).id === asked.id,
      ),
    ).toBe(true);
    const cursors = got.map(
      ({ update }) => (update.payload?.value as { metadata?: Record<string, { cursor?: number }> }).metadata?.['dev.harnesshub']?.cursor ?? 0,
    );
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(got.map(({ r }) => r.headers['webhook-id'])).size).toBe(got.length);
    const states = statesAt(path);
    expect(states.indexOf(TaskState.TASK_STATE_INPUT_REQUIRED)).toBeLessThan(states.indexOf(TaskState.TASK_STATE_COMPLETED));
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    // The config is a fact in the log, on the session's push stream, naming who set it.
    const facts = await stack.streamEvents(tenant.tenantId, `a2a-push-${asked.contextId}`);
    expect(facts.map((f) => [f.type, f.data.configId, f.data.turnId, f.metadata.protocol])).toEqual([
      ['A2aPushConfigSet', 'cfg-send', `a2a-${message.messageId}`, 'a2a'],
    ]);
  });

  it('a config set on a waiting task: get and list read it from the log; a 500 is retried with the same webhook-id; delete removes it; erasing the session erases them', async () => {
    const path = '/hook-flaky';
    receiver.answer(path, (_got, n) => ({ status: n === 1 ? 500 : 200 }));
    const asked = await sendTask(client, sendParams(userMessage('write "y" to flaky.txt')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const made = await client.createTaskPushNotificationConfig(pushConfig(asked.id, path, 'tok-flaky'));
    expect(made).toEqual(expect.objectContaining({ taskId: asked.id, url: receiver.url(path), token: 'tok-flaky' }));
    expect(made.id).not.toBe('');
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id })).toEqual(made);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([made]);
    // First the task as it stands (input-required): answered 500 once, then again, the same message.
    const both = await until('the retry', () => (receiver.at(path).length >= 2 ? receiver.at(path) : false));
    expect(both[0].headers['webhook-id']).toBe(both[1].headers['webhook-id']);
    expect(both[1].at - both[0].at).toBeGreaterThanOrEqual(800);
    expect(StreamResponse.fromJSON(JSON.parse(both[1].body)).payload?.$case).toBe('task');
    expect(stateOf(StreamResponse.fromJSON(JSON.parse(both[1].body)))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await approve(asked.id, asked.contextId);
    await until('completed at the receiver', () => statesAt(path).at(-1) === TaskState.TASK_STATE_COMPLETED);

    // Deleted: gone from get and list, and a later task's updates do not reach it.
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id })).rejects.toThrow(/no push notification config/);

    // Erasing the session erases its configs' stream and its notifications (their bodies are its text).
    const sent = async () => (await stack.query<{ n: number }>('SELECT count(*)::int AS n FROM a2a_push_messages WHERE task_id = $1', [asked.id]))[0].n;
    expect(await sent()).toBeGreaterThan(0);
    const erased = await fetch(`${stack.url}/v1/sessions/${asked.contextId}`, { method: 'DELETE', headers: { authorization: `Bearer ${tenant.apiKey}` } });
    expect(erased.status).toBe(200);
    expect(((await erased.json()) as { erased: { streamId: string }[] }).erased.map((e) => e.streamId)).toEqual([
      `session-${asked.contextId}`,
      `a2a-push-${asked.contextId}`,
    ]);
    expect(await stack.streamEvents(tenant.tenantId, `a2a-push-${asked.contextId}`)).toEqual([]);
    expect(await sent()).toBe(0);
  });

  it('the card says pushNotifications: true', async () => {
    expect((await client.getAgentCard()).capabilities).toEqual(expect.objectContaining({ pushNotifications: true }));
  });
});

describe('what is refused', () => {
  it('a config pointing at the cloud metadata address (169.254.169.254): -32602, nothing recorded, nothing sent', async () => {
    const asked = await sendTask(client, sendParams(userMessage('write "z" to ssrf.txt')));
    const before = await stack.countAllEvents();
    const bad = { ...pushConfig(asked.id, '/x', 't'), url: 'http://169.254.169.254/latest/meta-data/' };
    await expect(client.createTaskPushNotificationConfig(bad)).rejects.toThrow(/169\.254\.169\.254 is in a linkLocal range/);
    // With SendMessage too: refused before the task starts.
    await expect(sendWithPush(userMessage('calculate 1 + 1'), bad)).rejects.toThrow(/linkLocal/);
    expect(await stack.countAllEvents()).toBe(before);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  it('another tenant’s task: its configs are not found, and none can be set on it', async () => {
    const path = '/hook-tenant';
    const asked = await sendTask(client, sendParams(userMessage('write "w" to tenant.txt')));
    const made = await client.createTaskPushNotificationConfig(pushConfig(asked.id, path, 'tok-a'));
    const other = await stack.createTenant('other');
    const theirs = await a2aClient(stack.url, other.apiKey);
    await expect(theirs.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id })).rejects.toThrow(/no such task/);
    await expect(theirs.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).rejects.toThrow(/no such task/);
    await expect(theirs.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: made.id })).rejects.toThrow(/no such task/);
    await expect(theirs.createTaskPushNotificationConfig(pushConfig(asked.id, '/hook-theirs', 'tok-b'))).rejects.toThrow(/no such task/);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([made]);
    const seen: Received[] = receiver.at('/hook-theirs');
    expect(seen).toEqual([]);
  });
});
