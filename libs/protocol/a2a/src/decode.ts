import { SESSION_ID_PATTERN, SubmitTurn } from '@hub/domain';
import type { z } from 'zod';
import { A2A_ERROR_CODES, a2aError, invalidParams, type A2aError } from './errors';
import { newContextId, parseTaskId, turnIdOfMessage, type TaskRef } from './ids';
import { decodePush, PushConfigInput, type PushCall } from './push';
import {
  A2A_METHODS,
  A2A_PROTOCOL_VERSION,
  ApprovalDecision,
  JsonRpcRequest,
  LEGACY_METHODS,
  ListTasksParams,
  MAX_PROMPT_CHARS,
  SendMessageParams,
  TaskIdParams,
  type A2aMethod,
  type JsonRpcId,
  type Part,
} from './schema';

/** What decoding needs from the edge: ids (pure code cannot make them) and the version header. */
export interface DecodeContext {
  newId: () => string;
  /** The `A2A-Version` header as sent; absent: the version the card declares. */
  version?: string;
}

/** A message's answer to an approval: the data part, or a text that says it in one word. */
export type Decision = z.infer<typeof ApprovalDecision>;

/** What one JSON-RPC request asks the hub to do. */
export type A2aCall =
  /** A new turn (`submit`), or the continuation of an existing task (`continue`: an approval's answer). */
  | { kind: 'send'; stream: boolean; blocking: boolean; historyLength?: number; target: SendTarget; push?: PushConfigInput }
  | { kind: 'get'; task: TaskRef; taskId: string; historyLength?: number }
  | { kind: 'cancel'; task: TaskRef; taskId: string }
  | { kind: 'subscribe'; task: TaskRef; taskId: string }
  | { kind: 'list'; sessionId: string; pageSize: number; historyLength?: number; includeArtifacts: boolean }
  | PushCall;

export type SendTarget =
  | { kind: 'submit'; command: SubmitTurn; commandId: string }
  /** `decision` null: the message said no decision (the edge tells the client how to give one). */
  | { kind: 'continue'; task: TaskRef; taskId: string; messageId: string; decision: Decision | null };

export type DecodeResult = { ok: true; id: JsonRpcId; method: A2aMethod; call: A2aCall } | { ok: false; id: JsonRpcId | null; error: A2aError };

const DEFAULT_PAGE = 50;
const DECISION_WORDS: Readonly<Record<string, Decision['decision']>> = {
  approve: 'approved',
  approved: 'approved',
  yes: 'approved',
  deny: 'denied',
  denied: 'denied',
  no: 'denied',
};

/**
 * One JSON-RPC request body (already JSON-parsed) → what the hub should do, or the A2A error
 * to answer. Never throws. The extended card is refused here: no I/O could change that answer.
 */
export function decode(body: unknown, ctx: DecodeContext): DecodeResult {
  const id = idOf(body);
  const fail = (error: A2aError): DecodeResult => ({ ok: false, id, error });
  if (ctx.version !== undefined && ctx.version.trim() !== '' && !sameMajorMinor(ctx.version, A2A_PROTOCOL_VERSION)) {
    return fail(
      a2aError('VERSION_NOT_SUPPORTED', `A2A-Version ${ctx.version.slice(0, 32)} is not served here: this agent speaks A2A ${A2A_PROTOCOL_VERSION}`, {
        supported: A2A_PROTOCOL_VERSION,
      }),
    );
  }
  const req = JsonRpcRequest.safeParse(body);
  if (!req.success)
    return fail(
      a2aError('INVALID_REQUEST', 'Invalid Request: expected one JSON-RPC 2.0 request with jsonrpc "2.0", an id and a method', {
        field: pathOf(req.error.issues),
      }),
    );
  const { method, params } = req.data;
  if (!isMethod(method)) return fail(unknownMethod(method));
  const call = callOf(method, params ?? {}, ctx);
  return isA2aError(call) ? fail(call) : { ok: true, id: req.data.id, method, call };
}

function callOf(method: A2aMethod, params: unknown, ctx: DecodeContext): A2aCall | A2aError {
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendOf(params, method === 'SendStreamingMessage', ctx);
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask': {
      const p = TaskIdParams.safeParse(params);
      if (!p.success) return fromIssues(p.error.issues);
      const task = parseTaskId(p.data.id);
      if (!task) return a2aError('TASK_NOT_FOUND', 'no such task', { taskId: p.data.id.slice(0, 128) });
      if (method === 'GetTask')
        return { kind: 'get', task, taskId: p.data.id, ...(p.data.historyLength === undefined ? {} : { historyLength: p.data.historyLength }) };
      return { kind: method === 'CancelTask' ? 'cancel' : 'subscribe', task, taskId: p.data.id };
    }
    case 'ListTasks': {
      const p = ListTasksParams.safeParse(params);
      if (!p.success) return fromIssues(p.error.issues);
      // Tasks are turns of a session: the hub lists them per session (its sessions are listed by GET /v1/sessions).
      if (!p.data.contextId) return invalidParams('ListTasks needs contextId: tasks are listed per context (hub session)', 'params.contextId');
      if (!SESSION_ID_PATTERN.test(p.data.contextId))
        return a2aError('INVALID_PARAMS', 'contextId is not a hub session id (1-128 of [A-Za-z0-9._:@-])', { field: 'params.contextId' });
      return {
        kind: 'list',
        sessionId: p.data.contextId,
        pageSize: p.data.pageSize ?? DEFAULT_PAGE,
        includeArtifacts: p.data.includeArtifacts ?? false,
        ...(p.data.historyLength === undefined ? {} : { historyLength: p.data.historyLength }),
      };
    }
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return decodePush(method, params, (issues) => fromIssues(issues));
    case 'GetExtendedAgentCard':
      return a2aError('EXTENDED_CARD_NOT_CONFIGURED', 'this agent has no extended card: the card at /v1/a2a/.well-known/agent-card.json is the whole card');
  }
}

function sendOf(params: unknown, stream: boolean, ctx: DecodeContext): A2aCall | A2aError {
  const p = SendMessageParams.safeParse(params);
  if (!p.success) return fromIssues(p.error.issues);
  const { message, configuration } = p.data;
  const field = 'params.message';
  if (message.role !== 'ROLE_USER') return invalidParams('message.role must be ROLE_USER', `${field}.role`);
  const pushGiven = configuration?.taskPushNotificationConfig !== undefined && configuration.taskPushNotificationConfig !== null;
  const push = pushGiven ? PushConfigInput.safeParse(configuration?.taskPushNotificationConfig) : null;
  if (push && !push.success) return fromIssues(push.error.issues, 'params.configuration.taskPushNotificationConfig');
  const base = {
    kind: 'send' as const,
    stream,
    blocking: !(configuration?.returnImmediately ?? false),
    ...(configuration?.historyLength === undefined ? {} : { historyLength: configuration.historyLength }),
    ...(push?.success ? { push: push.data } : {}),
  };
  const parts = partsOf(message.parts);
  if (isA2aError(parts)) return parts;
  if (message.taskId) {
    const task = parseTaskId(message.taskId);
    if (!task) return a2aError('TASK_NOT_FOUND', 'no such task', { taskId: message.taskId.slice(0, 128) });
    if (message.contextId && message.contextId !== task.sessionId)
      return invalidParams('message.contextId is not the context of message.taskId', `${field}.contextId`);
    return {
      ...base,
      target: { kind: 'continue', task, taskId: message.taskId, messageId: message.messageId, decision: parts.decision ?? decisionWord(parts.text) },
    };
  }
  if (parts.decision) return invalidParams('an approval decision answers a task: send it with message.taskId of the input-required task', `${field}.parts`);
  if (!parts.text.trim()) return invalidParams('the message has no text: a new task needs a prompt in a text part', `${field}.parts`);
  const sessionId = message.contextId ?? newContextId(message.messageId, ctx.newId);
  if (!SESSION_ID_PATTERN.test(sessionId)) return invalidParams('message.contextId must be 1-128 of [A-Za-z0-9._:@-] (a hub session id)', `${field}.contextId`);
  const command = SubmitTurn.safeParse({
    type: 'SubmitTurn',
    sessionId,
    turnId: turnIdOfMessage(message.messageId),
    prompt: parts.text,
    context: { a2a: { messageId: message.messageId, contextId: sessionId } },
  });
  if (!command.success) return fromIssues(command.error.issues, field);
  return { ...base, target: { kind: 'submit', command: command.data, commandId: `a2a:${sessionId}:${message.messageId}` } };
}

/**
 * The text parts, joined, and a decision from a data part. File parts (`raw`, `url`) and other
 * data are refused by name: the hub's turns take text, and nothing a client sends is dropped silently.
 */
function partsOf(parts: readonly Part[]): { text: string; decision?: Decision } | A2aError {
  const texts: string[] = [];
  let decision: Decision | undefined;
  for (const [i, part] of parts.entries()) {
    const field = `params.message.parts[${i}]`;
    const kinds = (['text', 'raw', 'url', 'data'] as const).filter((k) => part[k] !== undefined);
    if (kinds.length !== 1) return invalidParams('a part has exactly one of text, raw, url or data', field);
    if (part.raw !== undefined || part.url !== undefined) {
      return a2aError(
        'CONTENT_TYPE_NOT_SUPPORTED',
        'file parts (raw, url) are not accepted: this agent takes text, and a data part only as an approval decision',
        { field },
      );
    }
    if (part.data !== undefined) {
      const d = ApprovalDecision.safeParse(part.data);
      if (!d.success)
        return a2aError(
          'CONTENT_TYPE_NOT_SUPPORTED',
          'a data part is accepted only as an approval decision {"decision": "approved"|"denied", "approvalId"?, "reason"?}',
          { field },
        );
      if (decision) return invalidParams('one decision per message', field);
      decision = d.data;
    }
    if (part.text !== undefined) texts.push(part.text);
  }
  const text = texts.join('\n');
  if (text.length > MAX_PROMPT_CHARS) return invalidParams(`the message text is longer than ${MAX_PROMPT_CHARS} characters`, 'params.message.parts');
  return decision ? { text, decision } : { text };
}

/** "approve" / "deny" (and yes / no), alone in the text, answer an approval too. */
function decisionWord(text: string): Decision | null {
  const word = DECISION_WORDS[text.trim().toLowerCase().replace(/[.!]$/, '')];
  return word ? { decision: word } : null;
}

function unknownMethod(method: string): A2aError {
  const successor = LEGACY_METHODS[method];
  if (successor) {
    return a2aError('VERSION_NOT_SUPPORTED', `${method} is A2A v0.3; this agent speaks A2A ${A2A_PROTOCOL_VERSION}, where it is ${successor}`, {
      method,
      supported: A2A_PROTOCOL_VERSION,
    });
  }
  return a2aError('METHOD_NOT_FOUND', `Method not found: ${method.slice(0, 64)}; this agent serves ${A2A_METHODS.join(', ')}`, { method: method.slice(0, 64) });
}

function isA2aError(x: A2aCall | A2aError | { text: string }): x is A2aError {
  return 'kind' in x && x.kind in A2A_ERROR_CODES;
}

function isMethod(m: string): m is A2aMethod {
  return (A2A_METHODS as readonly string[]).includes(m);
}

function sameMajorMinor(version: string, served: string): boolean {
  const [major, minor] = version.trim().split('.');
  const [sMajor, sMinor] = served.split('.');
  return major === sMajor && (minor ?? '0') === sMinor;
}

/** The request id, read best-effort (also from a request that fails to decode). */
export function idOf(body: unknown): JsonRpcId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as Record<string, unknown>)['id'];
  return (typeof id === 'string' && id.length <= 256) || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function pathOf(issues: readonly z.core.$ZodIssue[]): string {
  return (
    (issues[0]?.path ?? [])
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '') || '(body)'
  );
}

function fromIssues(issues: readonly z.core.$ZodIssue[], prefix = 'params'): A2aError {
  const rest = pathOf(issues);
  const field = rest === '(body)' ? prefix : `${prefix}${rest.startsWith('[') ? '' : '.'}${rest}`;
  return invalidParams(`${field}: ${issues[0]?.message ?? 'invalid'}`, field);
}
