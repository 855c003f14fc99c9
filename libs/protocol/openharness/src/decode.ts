import { ResolveApproval, SESSION_ID_PATTERN, SubmitTurn } from '@hub/domain';
import type { z } from 'zod';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, negotiateCapabilities, type Negotiated } from './capabilities';
import { isHubToken, parseContinuationToken, type ContinuationRef } from './continuation';
import { invalidRequest, wireError, type WireError } from './errors';
import { environmentForContext, environmentForLog, inlineBlobIn, MAX_ATTACHMENTS } from './privacy';
import { HUB_EXTENSION, HubExtension, RequestMessage, SEMVER_PATTERN, type RequestContext } from './schema';

/** What decoding needs from the edge: the key's tenant, and ids (pure code cannot make them). */
export interface DecodeContext {
  /** The tenant of the API key; `request.auth.tenant_id`, when sent, must be this one. */
  readonly tenantId: string;
  /** An id for a request that has no `request_id` (such a request is not idempotent). */
  readonly newId: () => string;
}

/** The ids a reply echoes (spec §5.2). */
export interface Echo {
  request_id?: string;
  correlation_id?: string;
}

/** What one request asks the hub to do. */
export type OpenHarnessAction =
  | { kind: 'submit'; command: SubmitTurn }
  /** `turnId` null: the approval came from elsewhere; the edge finds its turn in the log. */
  | { kind: 'resolve'; command: ResolveApproval; turnId: string | null; delivered: number }
  /** Collect the rest of a turn from a continuation token (no command). */
  | { kind: 'collect'; turnId: string; delivered: number };

export interface DecodedRequest {
  echo: Echo;
  requestId: string;
  /** True when the shell sent `request_id`: only then is the reply cached for repeats. */
  idempotent: boolean;
  sessionId: string;
  /** The command's idempotency key: `openharness:<session>:<request_id>`. */
  commandId: string;
  action: OpenHarnessAction;
  waitMs: number;
  capabilities: Negotiated;
  /** Extra event metadata: the request's `extensions`, kept as sent. */
  metadata: Record<string, unknown>;
  /** Safe to log: no `auth`, no environment values, no intent text. */
  logFields: Record<string, unknown>;
}

export type DecodeResult = { ok: true; request: DecodedRequest } | { ok: false; error: WireError; echo: Echo };

/** Stored in event metadata as sent, so bounded. */
export const MAX_EXTENSIONS_CHARS = 16_384;
const MAX_ID_CHARS = 256;

/**
 * Decodes one OpenHarness request body (already JSON-parsed) into what the hub should do:
 * submit a turn, resolve an approval, or collect the rest of a turn. Never throws. Unknown
 * fields are ignored; known fields of the wrong type are `invalid_request`; a major version
 * other than 1 is `protocol_version_unsupported`.
 */
export function decode(body: unknown, ctx: DecodeContext): DecodeResult {
  const echo = echoOf(body);
  const result = decodeMessage(body, ctx, echo);
  return isWireError(result) ? { ok: false, error: result, echo } : { ok: true, request: result };
}

/** The ids to echo, read best-effort from any body (also from one that fails to decode). */
export function echoOf(body: unknown): Echo {
  const id = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_CHARS ? v : undefined);
  if (!isRecord(body)) return {};
  const requestId = id(body['request_id']);
  const correlationId = id(body['correlation_id']);
  return { ...(requestId ? { request_id: requestId } : {}), ...(correlationId ? { correlation_id: correlationId } : {}) };
}

function decodeMessage(body: unknown, ctx: DecodeContext, echo: Echo): DecodedRequest | WireError {
  const envelopeError = checkEnvelope(body);
  if (envelopeError) return envelopeError;
  const parsed = RequestMessage.safeParse(body);
  if (!parsed.success) return fromIssues(parsed.error.issues);
  const msg = parsed.data;
  const context = msg.request.context ?? {};
  const refused = checkIds(msg) ?? checkAuth(msg, ctx.tenantId) ?? checkAttachments(context) ?? checkExtensions(msg, context);
  if (refused) return refused;
  const hub = hubExtensionOf(msg.request.extensions, context.extensions);
  if (isWireError(hub)) return hub;
  const requestId = msg.request_id ?? ctx.newId();
  const target = actionOf(context, hub, requestId);
  if (isWireError(target)) return target;
  return {
    echo,
    requestId,
    idempotent: msg.request_id !== undefined,
    sessionId: target.sessionId,
    commandId: `openharness:${target.sessionId}:${requestId}`,
    action: target.action,
    waitMs: Math.min(hub.wait_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS),
    capabilities: negotiateCapabilities(msg.capabilities),
    metadata: { openharness: compact({ requestId: msg.request_id, extensions: msg.request.extensions, contextExtensions: context.extensions }) },
    logFields: logFieldsOf(requestId, target.sessionId, target.action.kind, context),
  };
}

/** Version first: a body of another major may look like anything else. */
function checkEnvelope(body: unknown): WireError | null {
  if (!isRecord(body)) return invalidRequest('The body must be a JSON object.', '(body)');
  const version = body['protocol_version'];
  if (version === undefined) return invalidRequest('protocol_version is required.', 'protocol_version');
  if (typeof version !== 'string') return invalidRequest('protocol_version must be a semver string.', 'protocol_version');
  const match = SEMVER_PATTERN.exec(version);
  if (!match) return invalidRequest('protocol_version must be a semver string such as 1.0.0.', 'protocol_version');
  if (match[1] !== '1') {
    return wireError('protocol_version_unsupported', 'This engine accepts the 1.x wire format only.', { details: { requested: version } });
  }
  if (!isRecord(body['request'])) return invalidRequest('request is required and must be an object.', 'request');
  return null;
}

function checkIds(msg: RequestMessage): WireError | null {
  if ((msg.request_id?.length ?? 0) > MAX_ID_CHARS) return invalidRequest(`request_id is longer than ${MAX_ID_CHARS} characters.`, 'request_id');
  if ((msg.correlation_id?.length ?? 0) > MAX_ID_CHARS) return invalidRequest(`correlation_id is longer than ${MAX_ID_CHARS} characters.`, 'correlation_id');
  return null;
}

/** Identity comes from the API key; `auth` may only point at the same tenant. Never echoed. */
function checkAuth(msg: RequestMessage, tenantId: string): WireError | null {
  const claimed = msg.request.auth?.tenant_id;
  if (claimed === undefined || claimed === tenantId) return null;
  return wireError('forbidden', 'request.auth.tenant_id is not the tenant of the API key.', { details: { field: 'request.auth.tenant_id' } });
}

function checkAttachments(context: RequestContext): WireError | null {
  const list = context.attachments ?? [];
  if (list.length > MAX_ATTACHMENTS) return invalidRequest(`At most ${MAX_ATTACHMENTS} attachments.`, 'request.context.attachments');
  for (const [i, a] of list.entries()) {
    const why = inlineBlobIn(a, i);
    if (why) return invalidRequest(`Attachments are references only: ${why}.`, `request.context.attachments[${i}]`);
  }
  return null;
}

function checkExtensions(msg: RequestMessage, context: RequestContext): WireError | null {
  const size = JSON.stringify([msg.request.extensions ?? null, context.extensions ?? null]).length;
  return size > MAX_EXTENSIONS_CHARS ? invalidRequest(`extensions are larger than ${MAX_EXTENSIONS_CHARS} characters.`, 'request.extensions') : null;
}

/** `extensions["dev.harnesshub"]` of the context, overridden key by key by the request's. */
function hubExtensionOf(requestExt?: Record<string, unknown>, contextExt?: Record<string, unknown>): HubExtension | WireError {
  const field = `request.extensions.${HUB_EXTENSION}`;
  const parts = [contextExt?.[HUB_EXTENSION], requestExt?.[HUB_EXTENSION]].filter((p) => p !== undefined);
  if (parts.some((p) => !isRecord(p))) return invalidRequest(`extensions.${HUB_EXTENSION} must be an object.`, field);
  const parsed = HubExtension.safeParse(Object.assign({}, ...parts));
  return parsed.success ? parsed.data : fromIssues(parsed.error.issues, field);
}

type Target = { sessionId: string; action: OpenHarnessAction };

function actionOf(context: RequestContext, hub: HubExtension, requestId: string): Target | WireError {
  const token = context.continuation?.continuation_token;
  const ref = token !== undefined && isHubToken(token) ? parseContinuationToken(token) : undefined;
  if (ref === null) return invalidRequest('continuation_token is not a valid token of this engine.', 'request.context.continuation.continuation_token');
  const sessionId = sessionIdOf(context, ref, requestId);
  if (isWireError(sessionId)) return sessionId;
  if (hub.approval) return resolveTarget(sessionId, hub.approval, ref);
  if (ref) return { sessionId, action: { kind: 'collect', turnId: ref.turnId, delivered: ref.delivered } };
  if (!context.user_intent?.trim()) return invalidRequest('Missing required field in context.', 'request.context.user_intent');
  const command = SubmitTurn.safeParse({
    type: 'SubmitTurn',
    sessionId,
    turnId: `oh-${requestId}`,
    prompt: context.user_intent,
    context: turnContextOf(context),
    busyPolicy: hub.busy_policy,
  });
  return command.success ? { sessionId, action: { kind: 'submit', command: command.data } } : fromIssues(command.error.issues, 'request.context');
}

/** `session_id` (+ `:conversation_id`), else the token's session, else a one-off session. */
function sessionIdOf(context: RequestContext, ref: ContinuationRef | undefined, requestId: string): string | WireError {
  const named = context.session_id ?? (ref ? undefined : `oh-${requestId}`);
  if (named === undefined) return (ref as ContinuationRef).sessionId;
  const sessionId = context.conversation_id ? `${named}:${context.conversation_id}` : named;
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    return invalidRequest('session_id (with conversation_id) must be 1-128 of [A-Za-z0-9._:@-].', 'request.context.session_id');
  }
  if (ref && ref.sessionId !== sessionId) return invalidRequest('The continuation belongs to another session.', 'request.context.continuation');
  return sessionId;
}

function resolveTarget(sessionId: string, approval: NonNullable<HubExtension['approval']>, ref: ContinuationRef | undefined): Target | WireError {
  const field = `request.extensions.${HUB_EXTENSION}.approval`;
  const approvalId = approval.approval_id ?? ref?.approvalId;
  if (!approvalId) return invalidRequest('A decision needs the continuation of a request_approval directive, or approval_id.', field);
  if (ref?.approvalId && approval.approval_id && ref.approvalId !== approval.approval_id) {
    return invalidRequest('approval_id is not the approval of this continuation.', field);
  }
  const command = ResolveApproval.safeParse({ type: 'ResolveApproval', sessionId, approvalId, decision: approval.decision, reason: approval.reason ?? null });
  if (!command.success) return fromIssues(command.error.issues, field);
  return { sessionId, action: { kind: 'resolve', command: command.data, turnId: ref?.turnId ?? null, delivered: ref?.delivered ?? 0 } };
}

/** The turn's context: what the engine may use. Secret environment state never gets here. */
function turnContextOf(context: RequestContext): Record<string, unknown> {
  const foreignContinuation =
    context.continuation?.continuation_token && isHubToken(context.continuation.continuation_token) ? undefined : context.continuation;
  return compact({
    task_hint: context.task_hint,
    shell: context.shell,
    environment_state: context.environment_state && environmentForContext(context.environment_state),
    attachments: context.attachments,
    continuation: foreignContinuation,
    conversation_id: context.conversation_id,
  });
}

function logFieldsOf(requestId: string, sessionId: string, action: string, context: RequestContext): Record<string, unknown> {
  return compact({
    request_id: requestId,
    session_id: sessionId,
    action,
    shell_kind: context.shell?.shell_kind,
    environment: context.environment_state && environmentForLog(context.environment_state),
    attachments: context.attachments?.length,
  });
}

function fromIssues(issues: readonly z.core.$ZodIssue[], prefix?: string): WireError {
  const issue = issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter((p) => p !== undefined && p !== '').join('.') || '(body)';
  return invalidRequest(`${path}: ${issue?.message ?? 'invalid'}`, path);
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWireError(value: unknown): value is WireError {
  return isRecord(value) && typeof value['code'] === 'string' && typeof value['httpStatus'] === 'number';
}
