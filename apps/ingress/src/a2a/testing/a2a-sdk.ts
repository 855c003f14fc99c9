import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
  type Client,
} from '@a2a-js/sdk/client';

// The real @a2a-js/sdk client as the e2e specs drive the hub with it: the card found at the A2A
// well-known path under /v1/a2a, with the hub API key sent by the SDK's own authentication hook.

/** `fetch` that sends `Authorization: Bearer <key>` on every request (the SDK's auth handler). */
export function bearerFetch(key: string): typeof fetch {
  return createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ Authorization: `Bearer ${key}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
}

/** A client made the way an A2A caller makes one: discover the card at `<hub>/v1/a2a/`, then talk to the interface it names. */
export async function a2aClient(hubUrl: string, key: string): Promise<Client> {
  const fetchImpl = bearerFetch(key);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(`${hubUrl}/v1/a2a/`);
}

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
export const dataPart = (data: unknown): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A user message; `taskId`/`contextId` empty: a new task in a new context. */
export function userMessage(parts: Part[] | string, ids: { contextId?: string; taskId?: string; messageId?: string } = {}): Message {
  return {
    messageId: ids.messageId ?? randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export const sendParams = (message: Message, returnImmediately = false) => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

/** The text of a part list. */
export const textOfParts = (parts: readonly Part[] | undefined) => (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** The answer text a stream's artifact chunks carry, in order. */
export const streamedText = (events: readonly StreamResponse[]) =>
  events.map((e) => (e.payload?.$case === 'artifactUpdate' ? textOfParts(e.payload.value.artifact?.parts) : '')).join('');

/** The hub's cursor on a stream event (`metadata["dev.harnesshub"].cursor`). */
export function cursorOf(e: StreamResponse): number | undefined {
  const meta = e.payload?.value && 'metadata' in e.payload.value ? (e.payload.value.metadata as Record<string, { cursor?: number }> | undefined) : undefined;
  return meta?.['dev.harnesshub']?.cursor;
}

export const stateOf = (e: StreamResponse) =>
  e.payload?.$case === 'statusUpdate' ? e.payload.value.status?.state : e.payload?.$case === 'task' ? e.payload.value.status?.state : undefined;

/** Reads a stream to its end (or until `stop` says so, hanging up). */
export async function collect(stream: AsyncGenerator<StreamResponse>, stop?: (e: StreamResponse, all: StreamResponse[]) => boolean): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const e of stream) {
    all.push(e);
    if (stop?.(e, all)) break;
  }
  return all;
}

export const answerOf = (task: Task) => textOfParts(task.artifacts.find((a) => a.artifactId === 'answer')?.parts);

/** `SendMessage`, whose result the hub always makes a task. */
export async function sendTask(client: Client, params: ReturnType<typeof sendParams>): Promise<Task> {
  const r = await client.sendMessage(params);
  if (!('status' in r)) throw new Error(`SendMessage answered a message, not a task: ${JSON.stringify(r)}`);
  return r;
}
