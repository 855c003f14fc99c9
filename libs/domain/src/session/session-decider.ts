import type { CancelTurn, HubCommand, QueueReminder, ResolveApproval, RevokeReminder, SubmitTurn } from '../commands/commands';
import { DomainError, assertNever } from '../errors';
import type { EventOf, HubEvent } from '../events/events';
import { actorIdentity, type CommandMetadata } from '../metadata';
import { whyNotEligible } from './quorum';
import { evolveSession, type ActiveSession, type PendingApproval, type SessionState } from './session-state';

/** The user message of a turn has a deterministic id, so every projection agrees on it. */
export function userMessageIdOf(turnId: string): string {
  return `${turnId}:u`;
}

/**
 * Decides what a command means for a session: the events to append, or a `DomainError`.
 * Pure: ids and time come in the command and its metadata. A re-submitted turn id decides
 * nothing (`[]`), which is what makes a retried submit idempotent.
 */
export function decide(command: HubCommand, state: SessionState, meta: CommandMetadata): HubEvent[] {
  if (state.status !== 'new' && state.sessionId !== command.sessionId) {
    throw new DomainError('INVALID_COMMAND', `command for session ${command.sessionId} sent to ${state.sessionId}`);
  }
  switch (command.type) {
    case 'SubmitTurn':
      return submitTurn(command, state, meta);
    case 'CancelTurn':
      return cancelTurn(command, state, meta);
    case 'ResolveApproval':
      return resolveApproval(command, state, meta);
    case 'QueueReminder':
      return queueReminder(command, state, meta);
    case 'RevokeReminder':
      return revokeReminder(command, state);
    default:
      return assertNever(command, 'HubCommand');
  }
}

/**
 * After the active turn ended (its TurnCompleted/TurnFailed/TurnCancelled already folded into
 * `state`), the TurnStarted of the next queued turn, or nothing. The runtime appends it in the
 * same batch as the ending event, so a queued turn never waits for another command.
 */
export function nextTurnAfterEnd(state: SessionState): HubEvent[] {
  if (state.status !== 'idle') return [];
  const next = state.queue[0];
  return next ? [turnStarted(next.turnId)] : [];
}

function submitTurn(command: SubmitTurn, state: SessionState, meta: CommandMetadata): HubEvent[] {
  const requested: EventOf<'TurnRequested'> = {
    type: 'TurnRequested',
    data: {
      turnId: command.turnId,
      userMessageId: userMessageIdOf(command.turnId),
      prompt: command.prompt,
      context: command.context,
      busyPolicy: command.busyPolicy,
    },
  };
  if (state.status !== 'new' && state.knownTurnIds.has(command.turnId)) return [];
  switch (state.status) {
    case 'new':
      return [{ type: 'SessionOpened', data: { sessionId: command.sessionId, openedVia: meta.protocol } }, requested, turnStarted(command.turnId)];
    case 'idle':
      // A queue left behind while idle still goes first: order of requests is order of turns.
      return [requested, turnStarted(state.queue[0]?.turnId ?? command.turnId)];
    case 'active':
      return submitWhileBusy(command, state, meta, requested);
    default:
      return assertNever(state, 'SessionState');
  }
}

function submitWhileBusy(command: SubmitTurn, state: ActiveSession, meta: CommandMetadata, requested: EventOf<'TurnRequested'>): HubEvent[] {
  const activeTurnId = state.activeTurn.turnId;
  switch (command.busyPolicy) {
    case 'enqueue':
      return [requested];
    case 'reject':
      throw new DomainError('SESSION_BUSY', `session ${state.sessionId} is running turn ${activeTurnId}`, {
        activeTurnId,
      });
    case 'interrupt':
      // The new turn starts at once; turns queued earlier stay queued behind it.
      return [turnCancelled(activeTurnId, 'interrupted', meta), requested, turnStarted(command.turnId)];
    default:
      return assertNever(command.busyPolicy, 'BusyPolicy');
  }
}

function cancelTurn(command: CancelTurn, state: SessionState, meta: CommandMetadata): HubEvent[] {
  if (state.status === 'new') throw sessionNotFound(command.sessionId);
  const activeTurnId = state.status === 'active' ? state.activeTurn.turnId : undefined;
  const target = command.turnId ?? activeTurnId;
  if (target === undefined) {
    throw new DomainError('NO_ACTIVE_TURN', `session ${state.sessionId} has no active turn`);
  }
  if (target === activeTurnId) {
    const cancelled = turnCancelled(target, command.reason, meta);
    return [cancelled, ...nextTurnAfterEnd(evolveSession(state, cancelled))];
  }
  if (state.queue.some((q) => q.turnId === target)) return [turnCancelled(target, command.reason, meta)];
  if (state.finishedTurns.has(target)) {
    throw new DomainError('NO_ACTIVE_TURN', `turn ${target} has already ended`, {
      turnId: target,
      outcome: state.finishedTurns.get(target),
    });
  }
  throw new DomainError('TURN_NOT_FOUND', `turn ${target} not found in session ${state.sessionId}`, { turnId: target });
}

function resolveApproval(command: ResolveApproval, state: SessionState, meta: CommandMetadata): HubEvent[] {
  if (state.status === 'new') throw sessionNotFound(command.sessionId);
  const { approvalId } = command;
  if (command.input !== undefined && command.decision !== 'approved') {
    throw new DomainError('INVALID_COMMAND', 'edited arguments come only with an approval', { approvalId });
  }
  const pending = state.status === 'active' ? state.pendingApprovals.get(approvalId) : undefined;
  if (pending && command.expired && meta.actor.type === 'system') {
    const expired = onExpiry(approvalId, pending, meta);
    if (expired) return [expired];
  }
  if (pending?.quorum && meta.actor.type !== 'system') {
    const voted = quorumVote(command, pending, meta);
    if (voted) return [voted];
  }
  if (pending) {
    return [
      {
        type: 'ApprovalResolved',
        data: {
          turnId: pending.turnId,
          approvalId,
          toolCallId: pending.toolCallId,
          decision: command.decision,
          by: meta.actor,
          via: meta.protocol,
          reason: command.reason,
          ...(command.input === undefined ? {} : { input: command.input }),
        },
      },
    ];
  }
  const closed = state.closedApprovals.get(approvalId);
  if (closed) {
    throw new DomainError('APPROVAL_ALREADY_RESOLVED', `approval ${approvalId} is already ${closed.outcome}`, {
      approvalId,
      outcome: closed.outcome,
    });
  }
  throw new DomainError('APPROVAL_NOT_FOUND', `approval ${approvalId} not found in session ${state.sessionId}`, {
    approvalId,
  });
}

/**
 * An answer to an approval with quorum terms (ADR 0048): refused when the actor may not answer
 * it, or approved it already; an `ApprovalVoted` when it is an approval that does not reach the
 * quorum; null when it decides (a denial, or the approval that reaches it: `ApprovalResolved`).
 * The hub's own answers (a deadline) are not votes and skip this.
 */
function quorumVote(command: ResolveApproval, pending: PendingApproval, meta: CommandMetadata): EventOf<'ApprovalVoted'> | null {
  const terms = pending.quorum;
  if (!terms) return null;
  const { approvalId } = command;
  const identity = actorIdentity(meta.actor);
  const voter = { identity, keyPrefix: meta.actor.type === 'api_key' ? meta.actor.id : undefined, role: meta.actor.role, groups: meta.actor.groups };
  // The requester may always refuse their own call; only approving it is theirs to lose.
  const why = whyNotEligible(command.decision === 'denied' ? { ...terms, requesterMayApprove: true } : terms, voter);
  if (why !== null) {
    const requester = !terms.requesterMayApprove && terms.requester === identity;
    throw new DomainError(requester ? 'APPROVAL_REQUESTER_EXCLUDED' : 'APPROVER_NOT_ALLOWED', `approval ${approvalId}: ${why}`, { approvalId });
  }
  if (command.decision === 'denied') return null;
  const approvedBy = pending.approvedBy ?? [];
  if (approvedBy.includes(identity)) {
    throw new DomainError(
      'APPROVAL_ALREADY_VOTED',
      `approval ${approvalId}: ${identity} approved it already; it needs ${terms.required - approvedBy.length} more distinct approvals`,
      {
        approvalId,
        approvals: approvedBy.length,
        required: terms.required,
      },
    );
  }
  const approvals = approvedBy.length + 1;
  if (approvals >= terms.required) return null;
  if (command.input !== undefined) {
    // Each approver approves the call they saw: an edit comes only with the approval that decides.
    throw new DomainError('INVALID_COMMAND', `approval ${approvalId}: edited arguments come only with the approval that reaches the quorum`, { approvalId });
  }
  return {
    type: 'ApprovalVoted',
    data: {
      turnId: pending.turnId,
      approvalId,
      toolCallId: pending.toolCallId,
      decision: 'approved',
      by: meta.actor,
      via: meta.protocol,
      reason: command.reason,
      approvals,
      required: terms.required,
    },
  };
}

/**
 * The deadline of a pending approval passed (ADR 0048): `allow` approves the call, `escalate`
 * asks the escalation's approvers instead (a new approval, which closes this one as `escalated`,
 * with a deadline of its own when the rule gives it one); null for `deny` (the caller's denial stands).
 */
function onExpiry(approvalId: string, pending: PendingApproval, meta: CommandMetadata): HubEvent | null {
  const request = pending.request;
  const rule = request?.onExpiry;
  if (!request || !rule) return null;
  if (rule === 'allow') {
    return {
      type: 'ApprovalResolved',
      data: {
        turnId: pending.turnId,
        approvalId,
        toolCallId: pending.toolCallId,
        decision: 'approved',
        by: meta.actor,
        via: meta.protocol,
        reason: 'the approval deadline passed; its rule allows the call then',
      },
    };
  }
  const { approvers, required, afterSeconds } = rule.escalate;
  const { onExpiry: _once, deadlineAt: _first, escalatedFrom: _from, quorum, ...asked } = request;
  return {
    type: 'ApprovalRequested',
    data: {
      ...asked,
      approvalId: `${approvalId}.escalated`,
      reason: `${request.reason} (escalated: nobody answered by the deadline)`,
      // Its own deadline when the rule gives one (ADR 0050); passing it denies (no second escalation).
      deadlineAt: afterSeconds === undefined ? null : new Date(Date.parse(meta.now) + afterSeconds * 1000).toISOString(),
      quorum: { required, approvers, requesterMayApprove: quorum?.requesterMayApprove ?? true, requester: quorum?.requester ?? null },
      escalatedFrom: approvalId,
    },
  };
}

function queueReminder(command: QueueReminder, state: SessionState, meta: CommandMetadata): HubEvent[] {
  const queued: EventOf<'ReminderQueued'> = { type: 'ReminderQueued', data: command.reminder };
  // A reminder may come before the first prompt: it opens the session and waits for its first turn.
  if (state.status === 'new') return [{ type: 'SessionOpened', data: { sessionId: command.sessionId, openedVia: meta.protocol } }, queued];
  return state.reminders.has(command.reminder.reminderId) ? [] : [queued];
}

/**
 * Revokes a pending reminder. Revoking one already withdrawn decides nothing (`[]`: the edge
 * answers `already_revoked`); one a turn already drained is refused (`already_delivered`).
 */
function revokeReminder(command: RevokeReminder, state: SessionState): HubEvent[] {
  if (state.status === 'new') throw sessionNotFound(command.sessionId);
  const r = state.reminders.get(command.reminderId);
  if (!r)
    throw new DomainError('INVALID_COMMAND', `reminder ${command.reminderId}: unknown_reminder_id`, {
      reminderId: command.reminderId,
      reason: 'unknown_reminder_id',
    });
  if (r.status === 'delivered') {
    throw new DomainError('INVALID_COMMAND', `reminder ${command.reminderId}: already_delivered`, {
      reminderId: command.reminderId,
      reason: 'already_delivered',
    });
  }
  return r.status === 'pending' ? [{ type: 'ReminderRevoked', data: { reminderId: command.reminderId } }] : [];
}

function turnStarted(turnId: string): EventOf<'TurnStarted'> {
  return { type: 'TurnStarted', data: { turnId } };
}

function turnCancelled(turnId: string, reason: EventOf<'TurnCancelled'>['data']['reason'], meta: CommandMetadata): EventOf<'TurnCancelled'> {
  return { type: 'TurnCancelled', data: { turnId, reason, by: meta.actor } };
}

function sessionNotFound(sessionId: string): DomainError<'SESSION_NOT_FOUND'> {
  return new DomainError('SESSION_NOT_FOUND', `session ${sessionId} not found`, { sessionId });
}
