import { z } from 'zod';
import { A2A_PUSH_CONFIG_DELETED, A2A_PUSH_CONFIG_SET } from '@hub/domain';
import { a2aError, invalidParams, type A2aError } from './errors';
import { parseTaskId, taskIdOf, type TaskRef } from './ids';
import { MAX_ID_CHARS } from './schema';

// A2A v1.0 push notifications (a2a.proto `TaskPushNotificationConfig`, §3.1.7-3.1.10, §4.3): a
// client names a URL per task; the agent POSTs each `StreamResponse` of the task to it, with the
// client's token in `X-A2A-Notification-Token` (or `authentication` as `Authorization`). A config
// is a fact on the session's push stream (`a2aPushStreamId`), never a row of its own (ADR 0036).

/** The stream of a session's push-notification configs (beside its session stream, same tenant). */
export const a2aPushStreamId = (sessionId: string) => `a2a-push-${sessionId}`;
/** The header the token travels in (the SDK's `DefaultPushNotificationSender` default). */
export const A2A_NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';
/** The body's content type (the SDK's `V1PushNotificationSerializer`). */
export const A2A_PUSH_CONTENT_TYPE = 'application/a2a+json';
/** Configs one task may have at once. */
export const MAX_PUSH_CONFIGS = 10;

const AuthenticationInfo = z.object({
  scheme: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP auth scheme token'),
  credentials: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^[^\r\n]*$/, 'one line'),
});

/** `TaskPushNotificationConfig` as a client sends it (create, or inside `SendMessage`'s configuration). */
export const PushConfigInput = z.object({
  tenant: z.string().optional(),
  id: z
    .string()
    .max(MAX_ID_CHARS)
    .regex(/^[A-Za-z0-9._:@-]*$/, 'id: [A-Za-z0-9._:@-]')
    .optional(),
  taskId: z
    .string()
    .max(2 * MAX_ID_CHARS)
    .optional(),
  url: z.string().min(1).max(2048),
  token: z
    .string()
    .max(4096)
    .regex(/^[^\r\n]*$/, 'one line')
    .optional(),
  authentication: AuthenticationInfo.optional(),
});
export type PushConfigInput = z.infer<typeof PushConfigInput>;

const ConfigRef = z.object({
  tenant: z.string().optional(),
  taskId: z
    .string()
    .min(1)
    .max(2 * MAX_ID_CHARS),
  id: z.string().min(1).max(MAX_ID_CHARS),
});
const ListParams = z.object({
  tenant: z.string().optional(),
  taskId: z
    .string()
    .min(1)
    .max(2 * MAX_ID_CHARS),
  pageSize: z.number().int().nonnegative().optional(),
  pageToken: z.string().optional(),
});

/** A config as the log records it (`A2aPushConfigSet`'s data). */
export const PushConfig = z.object({
  configId: z.string(),
  turnId: z.string(),
  url: z.string(),
  token: z.string().nullable(),
  authentication: z.object({ scheme: z.string(), credentials: z.string() }).nullable(),
});
export type PushConfig = z.infer<typeof PushConfig>;

/** What a push-config method asks. */
export type PushCall =
  | { kind: 'push-set'; task: TaskRef; taskId: string; config: PushConfigInput }
  | { kind: 'push-get'; task: TaskRef; taskId: string; configId: string }
  | { kind: 'push-list'; task: TaskRef; taskId: string }
  | { kind: 'push-delete'; task: TaskRef; taskId: string; configId: string };

type Issues = readonly z.core.$ZodIssue[];

/** One push-config method's params → the call, or the error (the task id must be one of ours). */
export function decodePush(
  method: 'CreateTaskPushNotificationConfig' | 'GetTaskPushNotificationConfig' | 'ListTaskPushNotificationConfigs' | 'DeleteTaskPushNotificationConfig',
  params: unknown,
  fromIssues: (i: Issues) => A2aError,
): PushCall | A2aError {
  if (method === 'CreateTaskPushNotificationConfig') {
    const p = PushConfigInput.safeParse(params);
    if (!p.success) return fromIssues(p.error.issues);
    if (!p.data.taskId) return invalidParams('taskId: the task to notify about is required', 'params.taskId');
    const task = parseTaskId(p.data.taskId);
    return task ? { kind: 'push-set', task, taskId: p.data.taskId, config: p.data } : notFound(p.data.taskId);
  }
  if (method === 'ListTaskPushNotificationConfigs') {
    const p = ListParams.safeParse(params);
    if (!p.success) return fromIssues(p.error.issues);
    const task = parseTaskId(p.data.taskId);
    return task ? { kind: 'push-list', task, taskId: p.data.taskId } : notFound(p.data.taskId);
  }
  const p = ConfigRef.safeParse(params);
  if (!p.success) return fromIssues(p.error.issues);
  const task = parseTaskId(p.data.taskId);
  if (!task) return notFound(p.data.taskId);
  return { kind: method === 'GetTaskPushNotificationConfig' ? 'push-get' : 'push-delete', task, taskId: p.data.taskId, configId: p.data.id };
}

function notFound(taskId: string): A2aError {
  return a2aError('TASK_NOT_FOUND', 'no such task', { taskId: taskId.slice(0, 128) });
}

/** The log's fact of a config set (its data), from a client's input: `configId` the client's id, or `newId`'s. */
export function pushConfigOf(input: PushConfigInput, turnId: string, url: string, newId: () => string): PushConfig {
  return { configId: input.id || newId(), turnId, url, token: input.token || null, authentication: input.authentication ?? null };
}

/** A session's push stream → each task's live configs (set, not deleted since), in the order set. */
export function foldPushConfigs(
  events: readonly { type: string; data: unknown; globalPosition?: number }[],
  upTo = Number.POSITIVE_INFINITY,
): Map<string, PushConfig[]> {
  const byTurn = new Map<string, PushConfig[]>();
  for (const e of events) {
    if ((e.globalPosition ?? 0) > upTo) break;
    if (e.type === A2A_PUSH_CONFIG_SET) {
      const c = PushConfig.parse(e.data);
      const kept = (byTurn.get(c.turnId) ?? []).filter((x) => x.configId !== c.configId);
      byTurn.set(c.turnId, [...kept, c]);
    } else if (e.type === A2A_PUSH_CONFIG_DELETED) {
      const d = e.data as { turnId: string; configId: string };
      byTurn.set(
        d.turnId,
        (byTurn.get(d.turnId) ?? []).filter((x) => x.configId !== d.configId),
      );
    }
  }
  return byTurn;
}

/** A config on the wire (`TaskPushNotificationConfig`, proto-JSON). The token and credentials are the client's own: given back to it. */
export function pushConfigWire(sessionId: string, c: PushConfig): Record<string, unknown> {
  return {
    id: c.configId,
    taskId: taskIdOf({ sessionId, turnId: c.turnId }),
    url: c.url,
    ...(c.token ? { token: c.token } : {}),
    ...(c.authentication ? { authentication: c.authentication } : {}),
  };
}

/** The headers a notification carries for its config: `authentication` as `Authorization`, else the token (as the SDK's sender). */
export function pushAuthHeaders(c: Pick<PushConfig, 'token' | 'authentication'>): Record<string, string> {
  if (c.authentication) return { authorization: `${c.authentication.scheme} ${c.authentication.credentials}` };
  return c.token ? { [A2A_NOTIFICATION_TOKEN_HEADER.toLowerCase()]: c.token } : {};
}
