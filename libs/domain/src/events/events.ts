import { z } from 'zod';
import { Actor, Protocol } from '../metadata';
import { QuorumApprovers, QuorumTerms } from '../session/quorum';
import { defineEvent as ev } from './define-event';
import { EpisodeReset, RewardComputed } from './episode-events';
import { SessionForked, SessionRedriven } from './lineage-events';
import { TurnQueued } from './queue-events';
import { ReminderEmitted, ReminderQueued, ReminderRevoked, UserMessageInjected } from './live-input-events';

export * from './episode-events';
export * from './live-input-events';
export * from './lineage-events';
export * from './queue-events';

// The canonical events. Each is declared once: a zod const and a same-named type. Events are
// facts, past tense; never edit one in place — add `v2` with an upcaster instead.
// Every event lives on a session stream (see `sessionStreamId`); ids inside are deterministic
// (derived from the turn id and step), so a retried worker appends nothing new.

/** What a second submit does while a turn is active. The same on every protocol. */
export const BusyPolicy = z.enum(['enqueue', 'reject', 'interrupt']);
export type BusyPolicy = z.infer<typeof BusyPolicy>;

export const Usage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const RiskTier = z.enum(['low', 'medium', 'high']);
export type RiskTier = z.infer<typeof RiskTier>;

export const ToolPolicyDecision = z.enum(['allow', 'ask', 'deny']);
export type ToolPolicyDecision = z.infer<typeof ToolPolicyDecision>;

/** Free-form context a protocol attaches to a turn (task hint, shell, channel, ...). */
export const TurnContext = z.record(z.string(), z.unknown());
export type TurnContext = z.infer<typeof TurnContext>;

export const SessionOpened = ev('SessionOpened', {
  sessionId: z.string(),
  openedVia: Protocol,
});
export type SessionOpened = z.infer<typeof SessionOpened>;

export const TurnRequested = ev('TurnRequested', {
  turnId: z.string(),
  userMessageId: z.string(),
  prompt: z.string(),
  context: TurnContext,
  busyPolicy: BusyPolicy,
});
export type TurnRequested = z.infer<typeof TurnRequested>;

export const TurnStarted = ev('TurnStarted', { turnId: z.string() });
export type TurnStarted = z.infer<typeof TurnStarted>;

export const MessageStarted = ev('MessageStarted', {
  turnId: z.string(),
  messageId: z.string(),
  role: z.literal('assistant'),
});
export type MessageStarted = z.infer<typeof MessageStarted>;

export const ModelCallStarted = ev('ModelCallStarted', {
  turnId: z.string(),
  callId: z.string(),
  step: z.number().int().nonnegative(),
  provider: z.string(),
  model: z.string(),
  /** What was sent, minus anything marked secret. For audit and RFC 005 `llm_request`. */
  messageCount: z.number().int().nonnegative(),
  toolNames: z.array(z.string()),
});
export type ModelCallStarted = z.infer<typeof ModelCallStarted>;

/** A chunk of answer text. `offset` is where it starts within this model call's text. */
export const TextDelta = ev('TextDelta', {
  turnId: z.string(),
  messageId: z.string(),
  callId: z.string(),
  offset: z.number().int().nonnegative(),
  text: z.string(),
});
export type TextDelta = z.infer<typeof TextDelta>;

export const ThoughtDelta = ev('ThoughtDelta', {
  turnId: z.string(),
  messageId: z.string(),
  callId: z.string(),
  offset: z.number().int().nonnegative(),
  text: z.string(),
});
export type ThoughtDelta = z.infer<typeof ThoughtDelta>;

export const RequestedToolCall = z.object({
  toolCallId: z.string(),
  name: z.string(),
  input: z.unknown(),
});
export type RequestedToolCall = z.infer<typeof RequestedToolCall>;

/** The model call's outcome, recorded once: a retry never calls the model again for it. */
export const ModelCallCompleted = ev('ModelCallCompleted', {
  turnId: z.string(),
  callId: z.string(),
  step: z.number().int().nonnegative(),
  text: z.string(),
  toolCalls: z.array(RequestedToolCall),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']),
  usage: Usage,
});
export type ModelCallCompleted = z.infer<typeof ModelCallCompleted>;

/** Which version of the tenant's approval policy decided a call, and by which rule (`default` when none matched). */
export const ApprovalPolicyRef = z.object({ version: z.number().int().nonnegative(), rule: z.string(), ruleIndex: z.number().int().nonnegative().nullable() });
export type ApprovalPolicyRef = z.infer<typeof ApprovalPolicyRef>;

export const ToolCallStarted = ev('ToolCallStarted', {
  turnId: z.string(),
  messageId: z.string(),
  toolCallId: z.string(),
  name: z.string(),
  input: z.unknown(),
  policy: ToolPolicyDecision,
  /** Where the tool runs: the hub's own tools, an MCP server, a wrapped harness... */
  executor: z.string(),
  /** The tenant policy's version and rule that gave `policy` (issue 23); absent before policies and for wrapped harnesses. */
  policyRule: ApprovalPolicyRef.optional(),
});
export type ToolCallStarted = z.infer<typeof ToolCallStarted>;

export const ToolCallUpdated = ev('ToolCallUpdated', {
  turnId: z.string(),
  toolCallId: z.string(),
  message: z.string(),
});
export type ToolCallUpdated = z.infer<typeof ToolCallUpdated>;

export const ToolCallCompleted = ev('ToolCallCompleted', {
  turnId: z.string(),
  toolCallId: z.string(),
  status: z.enum(['complete', 'error', 'denied']),
  /** The result as the model sees it. */
  output: z.string(),
  durationMs: z.number().nonnegative(),
});
export type ToolCallCompleted = z.infer<typeof ToolCallCompleted>;

export const ApprovalRequested = ev('ApprovalRequested', {
  turnId: z.string(),
  approvalId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  riskTier: RiskTier,
  reason: z.string(),
  /** ISO time after which the approval is treated as denied, when a deadline applies. */
  deadlineAt: z.string().nullable(),
  /**
   * The tenant policy's version and the rule that asked (issue 23). Absent on every approval
   * before policies existed, and on a wrapped harness's own permission requests.
   */
  policy: ApprovalPolicyRef.optional(),
  /**
   * How many distinct approvals it needs and from whom (issue 23, ADR 0048). Absent (every
   * approval before quorums, and any that one approval from anyone may answer): the first answer
   * decides.
   */
  quorum: QuorumTerms.optional(),
  /**
   * What the deadline's passing does (ADR 0048): `allow` approves the call, `escalate` asks these
   * other approvers instead (a new `ApprovalRequested` with `escalatedFrom`, its own deadline
   * `afterSeconds` after the escalation when given, which denies; ADR 0050). Absent: it is denied.
   */
  onExpiry: z
    .union([
      z.literal('allow'),
      z.object({ escalate: z.object({ approvers: QuorumApprovers, required: z.number().int().min(1), afterSeconds: z.number().int().min(1).optional() }) }),
    ])
    .optional(),
  /** The approval whose deadline passed unanswered, when this one is its escalation. */
  escalatedFrom: z.string().optional(),
});
export type ApprovalRequested = z.infer<typeof ApprovalRequested>;

/**
 * One approval of a call that needs more than one (ADR 0048), recorded when it does not yet reach
 * the quorum: the call keeps waiting. The approval that reaches it, or any denial, is an
 * `ApprovalResolved` instead, as with a single approver.
 */
export const ApprovalVoted = ev('ApprovalVoted', {
  turnId: z.string(),
  approvalId: z.string(),
  toolCallId: z.string(),
  decision: z.literal('approved'),
  by: Actor,
  via: Protocol,
  reason: z.string().nullable(),
  /** Distinct approvals so far, this one included, and how many it needs. */
  approvals: z.number().int().positive(),
  required: z.number().int().positive(),
});
export type ApprovalVoted = z.infer<typeof ApprovalVoted>;

export const ApprovalResolved = ev('ApprovalResolved', {
  turnId: z.string(),
  approvalId: z.string(),
  toolCallId: z.string(),
  decision: z.enum(['approved', 'denied']),
  by: Actor,
  via: Protocol,
  reason: z.string().nullable(),
  /**
   * The approver's edit of the call's arguments: an approved call runs with these, not the
   * model's. Absent (every event before it existed too): the call runs as the model asked.
   */
  input: z.record(z.string(), z.unknown()).optional(),
});
export type ApprovalResolved = z.infer<typeof ApprovalResolved>;

export const MessageCompleted = ev('MessageCompleted', {
  turnId: z.string(),
  messageId: z.string(),
});
export type MessageCompleted = z.infer<typeof MessageCompleted>;

export const TurnCompleted = ev('TurnCompleted', {
  turnId: z.string(),
  /** The final answer: every model call's text of this turn, joined. */
  text: z.string(),
  stopReason: z.enum(['end_turn', 'max_steps']),
  usage: Usage,
  /** A wrapped harness signalled that its task is complete (RFC 005 `done`); absent otherwise. */
  done: z.literal(true).optional(),
});
export type TurnCompleted = z.infer<typeof TurnCompleted>;

export const TurnFailed = ev('TurnFailed', {
  turnId: z.string(),
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
});
export type TurnFailed = z.infer<typeof TurnFailed>;

export const TurnCancelled = ev('TurnCancelled', {
  turnId: z.string(),
  reason: z.enum(['user', 'interrupted', 'timeout']),
  by: Actor,
});
export type TurnCancelled = z.infer<typeof TurnCancelled>;

export const HubEvent = z.discriminatedUnion('type', [
  SessionOpened,
  TurnRequested,
  TurnStarted,
  MessageStarted,
  ModelCallStarted,
  TextDelta,
  ThoughtDelta,
  ModelCallCompleted,
  ToolCallStarted,
  ToolCallUpdated,
  ToolCallCompleted,
  ApprovalRequested,
  ApprovalVoted,
  ApprovalResolved,
  MessageCompleted,
  TurnCompleted,
  TurnFailed,
  TurnCancelled,
  RewardComputed,
  EpisodeReset,
  UserMessageInjected,
  ReminderQueued,
  ReminderRevoked,
  ReminderEmitted,
  SessionForked,
  SessionRedriven,
  TurnQueued,
]);
export type HubEvent = z.infer<typeof HubEvent>;
export type HubEventType = HubEvent['type'];
export type EventOf<T extends HubEventType> = Extract<HubEvent, { type: T }>;
