import { assertNever, type ApprovalRequested, type RiskTier } from '@hub/domain';
import type { Negotiated } from './capabilities';
import { continuationToken } from './continuation';
import type { Echo } from './decode';
import { wireError, wireErrorFromTurnFailure, type WireError } from './errors';
import { HUB_EXTENSION, OPENHARNESS_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type ActionDirective, type ResponseMessage } from './schema';

/**
 * Where a turn stands when the reply is written (the edge's `TurnOutcome` has this shape and
 * more). `text` is the turn's answer so far: every model call's text, joined.
 */
export type TurnResult =
  | { kind: 'completed'; text: string }
  | { kind: 'failed'; code: string; message: string; retryable: boolean }
  | { kind: 'cancelled'; reason: string; text: string }
  /** `votes`: distinct approvals so far of an approval that needs several (ADR 0048), by approval id. */
  | { kind: 'awaiting_approval'; text: string; approvals: readonly ApprovalRequested['data'][]; votes?: Readonly<Record<string, number>> }
  /** `queued`: no worker has taken the turn yet (its last event is `TurnQueued`, ADR 0033). */
  | { kind: 'pending'; text: string; queued?: QueuedTurn | null };

/** A turn's wait for a worker, as the continue directive reports it. */
export interface QueuedTurn {
  reason: string;
  /** When the turn was scheduled (ISO time). */
  since: string;
}

/** What encoding needs besides the result; time comes in as data. */
export interface ReplyView {
  echo: Echo;
  capabilities: Negotiated;
  sessionId: string;
  turnId: string;
  /** Characters of the answer the shell already got (from its continuation token). */
  delivered: number;
  /** Now, in epoch ms: `deadline_ms` is relative to it. */
  nowMs: number;
  /** Real time the hub spent on this request. */
  latencyMs: number;
}

/** A reply body and the HTTP status it leaves with. */
export interface WireReply {
  httpStatus: number;
  body: ResponseMessage;
  /** The `Retry-After` header the reply carries (seconds), when the error names a wait. */
  retryAfterS?: number;
}

/** The namespaced directive of a turn that outlasted the wait budget. */
export const CONTINUE_ACTION_TYPE = `${HUB_EXTENSION}.continue`;
/** Every `action_type` this hub emits: core types of spec §12, or namespaced ones of ours. */
export const EMITTED_ACTION_TYPES: readonly string[] = ['render_message', 'request_approval', CONTINUE_ACTION_TYPE];
/** Directives that lead to side effects carry `payload.fallback_message` (spec §11). */
export const SIDE_EFFECT_ACTION_TYPES: readonly string[] = ['request_approval', CONTINUE_ACTION_TYPE];

const RISK: Record<RiskTier, NonNullable<ActionDirective['risk_tier']>> = { low: 'safe', medium: 'caution', high: 'dangerous' };
/** How long a shell should wait before collecting a turn that is still running. */
const RETRY_AFTER_MS = 1000;

/**
 * The reply for a turn's outcome: its answer as `render_message`, each pending approval as
 * `request_approval` with a continuation, a still-running turn as a `dev.harnesshub.continue`
 * directive with a continuation; a failed or cancelled turn as `status: error`. Only the part
 * of the answer the shell has not yet been sent is rendered.
 */
export function encodeReply(result: TurnResult, view: ReplyView): WireReply {
  switch (result.kind) {
    case 'completed':
      return success(view, renderRest(result.text, view.delivered));
    case 'failed':
      return encodeError(wireErrorFromTurnFailure(result.code, result.message, result.retryable), view.echo, view);
    case 'cancelled':
      return encodeError(wireError('turn_cancelled', 'The turn was cancelled.', { details: { reason: result.reason, run_id: view.turnId } }), view.echo, view);
    case 'awaiting_approval': {
      const delivered = Math.max(view.delivered, result.text.length);
      const asks = result.approvals.map((a) => requestApproval(a, view, delivered, result.votes?.[a.approvalId] ?? 0));
      return success(view, [...renderRest(result.text, view.delivered), ...asks]);
    }
    case 'pending': {
      const delivered = Math.max(view.delivered, result.text.length);
      return success(view, [...renderRest(result.text, view.delivered), continueLater(view, delivered, result.queued ?? null)]);
    }
    default:
      return assertNever(result, 'turn result');
  }
}

/** An error reply in the spec's shape (§13), with the ids echoed and the versions advertised. */
export function encodeError(error: WireError, echo: Echo, view?: Pick<ReplyView, 'capabilities' | 'latencyMs'>): WireReply {
  return {
    httpStatus: error.httpStatus,
    ...(error.retryAfterS === undefined ? {} : { retryAfterS: error.retryAfterS }),
    body: {
      protocol_version: OPENHARNESS_PROTOCOL_VERSION,
      ...echo,
      supported_protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      ...(view ? view.capabilities : {}),
      response: {
        status: 'error',
        ...(view ? { engine_latency_ms: view.latencyMs } : {}),
        error: {
          code: error.code,
          message: error.message,
          retryable: error.retryable,
          ...(error.details ? { details: error.details } : {}),
        },
      },
    },
  };
}

function success(view: ReplyView, directives: ActionDirective[]): WireReply {
  return {
    httpStatus: 200,
    body: {
      protocol_version: OPENHARNESS_PROTOCOL_VERSION,
      ...view.echo,
      supported_protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      ...view.capabilities,
      response: { status: 'success', engine_latency_ms: view.latencyMs, action_directives: directives },
    },
  };
}

function renderRest(text: string, delivered: number): ActionDirective[] {
  const rest = text.slice(delivered);
  return rest.length > 0 ? [{ action_type: 'render_message', priority: 'normal', risk_tier: 'safe', payload: { text: rest } }] : [];
}

function continuation(view: ReplyView, delivered: number, approvalId?: string): Record<string, string> {
  const token = continuationToken({ sessionId: view.sessionId, turnId: view.turnId, approvalId, delivered });
  return { run_id: view.turnId, continuation_token: token };
}

/**
 * What the hub adds to a `request_approval` under its namespace: the policy rule that asked (issue
 * 23) and, for an approval that needs several approvers, how many it has and needs (ADR 0048).
 */
function approvalExtension(approval: ApprovalRequested['data'], votes: number): Record<string, unknown> | null {
  const ext: Record<string, unknown> = {};
  if (approval.policy) ext['policy'] = { version: approval.policy.version, rule: approval.policy.rule, rule_index: approval.policy.ruleIndex };
  if (approval.quorum) ext['quorum'] = { required: approval.quorum.required, approvals: votes, requester_may_approve: approval.quorum.requesterMayApprove };
  return Object.keys(ext).length > 0 ? ext : null;
}

function requestApproval(approval: ApprovalRequested['data'], view: ReplyView, delivered: number, votes: number): ActionDirective {
  const deadline = approval.deadlineAt === null ? NaN : Date.parse(approval.deadlineAt) - view.nowMs;
  const ext = approvalExtension(approval, votes);
  return {
    action_type: 'request_approval',
    priority: 'high',
    risk_tier: RISK[approval.riskTier],
    requires_user_approval: true,
    ...(Number.isFinite(deadline) ? { deadline_ms: Math.max(0, Math.round(deadline)) } : {}),
    payload: {
      approval_id: approval.approvalId,
      tool_name: approval.toolName,
      input: approval.input ?? null,
      reason: approval.reason,
      message: `Allow ${approval.toolName}? ${approval.reason}`,
      fallback_message: `The assistant is waiting for approval to run ${approval.toolName}. Approve or deny it from a client that supports approvals.`,
      continuation: continuation(view, delivered, approval.approvalId),
    },
    ...(ext ? { extensions: { [HUB_EXTENSION]: ext } } : {}),
  };
}

function continueLater(view: ReplyView, delivered: number, queued: QueuedTurn | null): ActionDirective {
  // v1 has no waiting state; our own directive is where a shell can tell "busy hub" from "slow model".
  const message = queued
    ? 'The turn is waiting for a worker to take it; send the continuation to collect it.'
    : 'The turn is still running; send the continuation to collect the rest.';
  return {
    action_type: CONTINUE_ACTION_TYPE,
    priority: 'normal',
    risk_tier: 'safe',
    payload: {
      message,
      fallback_message: 'Still working on it. Ask again in a moment.',
      retry_after_ms: RETRY_AFTER_MS,
      continuation: continuation(view, delivered),
      ...(queued ? { queued: { reason: queued.reason, since: queued.since } } : {}),
    },
  };
}
