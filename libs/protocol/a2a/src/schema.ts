import { z } from 'zod';

// A2A v1.0 (a2aproject/A2A, `lf.a2a.v1` in a2a.proto), JSON-RPC 2.0 binding, in the proto-JSON
// spelling @a2a-js/sdk 1.3.0 writes and reads (camelCase fields, enums by name, a `oneof` as the
// name of its field: `{"text": ...}` parts, `{"task": ...}` results). Only what the hub reads is
// declared; unknown keys are ignored.

/** The protocol version this hub serves, and the only one its agent card declares. */
export const A2A_PROTOCOL_VERSION = '1.0';
/** The `A2A-Version` request header (A2A v1.0 §3.6); absent means the card's version. */
export const A2A_VERSION_HEADER = 'A2A-Version';
/** Where a client finds the card, relative to the interface URL (`/v1/a2a/`). */
export const AGENT_CARD_PATH = '.well-known/agent-card.json';
/** The key of our additions in any `metadata` map (the hub's cursor, session and turn ids). */
export const HUB_METADATA_KEY = 'dev.harnesshub';

/** The v1.0 JSON-RPC methods (a2a.proto service `A2AService`). */
export const A2A_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export type A2aMethod = (typeof A2A_METHODS)[number];

/** v0.3 method names and their v1.0 successors: refused with VersionNotSupported, naming the new one. */
export const LEGACY_METHODS: Readonly<Record<string, A2aMethod>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/list': 'ListTasks',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

export const MAX_ID_CHARS = 256;
export const MAX_PARTS = 32;
/** A message's text, joined: the turn's prompt. */
export const MAX_PROMPT_CHARS = 100_000;

export const JsonRpcId = z.union([z.string().max(MAX_ID_CHARS), z.number().int()]);
export type JsonRpcId = z.infer<typeof JsonRpcId>;

export const JsonRpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId,
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

const Metadata = z.record(z.string(), z.unknown());

/** One part of a message: exactly one of `text`, `raw` (base64), `url` or `data`. */
export const Part = z.object({
  text: z.string().optional(),
  raw: z.string().optional(),
  url: z.string().optional(),
  data: z.unknown().optional(),
  metadata: Metadata.optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
});
export type Part = z.infer<typeof Part>;

export const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']);

export const Message = z.object({
  messageId: z.string().min(1).max(MAX_ID_CHARS),
  contextId: z.string().max(MAX_ID_CHARS).optional(),
  taskId: z
    .string()
    .max(2 * MAX_ID_CHARS)
    .optional(),
  role: Role,
  parts: z.array(Part).min(1).max(MAX_PARTS),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof Message>;

export const SendMessageConfiguration = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  taskPushNotificationConfig: z.unknown().optional(),
  historyLength: z.number().int().nonnegative().optional(),
  returnImmediately: z.boolean().optional(),
});

export const SendMessageParams = z.object({
  tenant: z.string().optional(),
  message: Message,
  configuration: SendMessageConfiguration.optional(),
  metadata: Metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

/** `GetTask`, `CancelTask`, `SubscribeToTask`: a task by id. */
export const TaskIdParams = z.object({
  tenant: z.string().optional(),
  id: z
    .string()
    .min(1)
    .max(2 * MAX_ID_CHARS),
  historyLength: z.number().int().nonnegative().optional(),
  metadata: Metadata.optional(),
});
export type TaskIdParams = z.infer<typeof TaskIdParams>;

export const ListTasksParams = z.object({
  tenant: z.string().optional(),
  contextId: z.string().max(MAX_ID_CHARS).optional(),
  pageSize: z.number().int().positive().max(100).optional(),
  historyLength: z.number().int().nonnegative().optional(),
  includeArtifacts: z.boolean().optional(),
});

/** The answer to an approval, as a data part of the message that continues an `input-required` task. */
export const ApprovalDecision = z.object({
  decision: z.enum(['approved', 'denied']),
  /** Needed only when the task waits for more than one approval. */
  approvalId: z.string().min(1).max(MAX_ID_CHARS).optional(),
  reason: z.string().max(2000).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

// What the hub writes. Plain types (no zod): encode builds them, the conformance spec checks
// them with the SDK's own `fromJSON`.

export type TaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED';

export const TERMINAL_STATES: readonly TaskState[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

export interface WirePart {
  text?: string;
  data?: unknown;
  mediaType?: string;
}

export interface WireMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  parts: WirePart[];
  metadata?: Record<string, unknown>;
}

export interface WireStatus {
  state: TaskState;
  message?: WireMessage;
  timestamp: string;
}

export interface WireArtifact {
  artifactId: string;
  name: string;
  /** Absent on the last chunk of an answer whose text went out already (proto JSON omits an empty list). */
  parts?: WirePart[];
}

export interface WireTask {
  id: string;
  contextId: string;
  status: WireStatus;
  artifacts?: WireArtifact[];
  history?: WireMessage[];
  metadata: Record<string, unknown>;
}

export interface WireStatusUpdate {
  taskId: string;
  contextId: string;
  status: WireStatus;
  metadata: Record<string, unknown>;
}

export interface WireArtifactUpdate {
  taskId: string;
  contextId: string;
  artifact: WireArtifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata: Record<string, unknown>;
}

/** One `StreamResponse` (a2a.proto): the `result` of one SSE event. */
export type StreamResponse = { task: WireTask } | { statusUpdate: WireStatusUpdate } | { artifactUpdate: WireArtifactUpdate };
