import { DomainError, assertNever } from '../errors';
import type { EventOf, HubEvent, Reminder, TurnRequested } from '../events/events';
import { isSteer } from '../events/live-input-events';
import { actorIdentity } from '../metadata';
import type { QuorumTerms } from './quorum';

/** What the active turn is doing: producing output, or waiting for a human decision. */
export type ActiveTurnStatus = 'running' | 'awaiting_approval';

export interface ActiveTurn {
  readonly turnId: string;
  readonly status: ActiveTurnStatus;
}

/** An approval the active turn is waiting for. */
export interface PendingApproval {
  readonly turnId: string;
  readonly toolCallId: string;
  /** Its quorum terms (ADR 0048); absent: the first answer decides. */
  readonly quorum?: QuorumTerms;
  /** With a quorum: the identities (`actorIdentity`) that approved so far, in order. */
  readonly approvedBy?: readonly string[];
  /** The request, when its deadline allows or escalates (the escalation repeats it to other approvers). */
  readonly request?: EventOf<'ApprovalRequested'>['data'];
}

/**
 * An approval that can no longer be resolved: answered, or abandoned because its turn ended
 * first (cancelled, failed). Kept so a late answer is told "already resolved", not "not found".
 */
export interface ClosedApproval {
  readonly turnId: string;
  readonly toolCallId: string;
  readonly outcome: 'approved' | 'denied' | 'turn_ended' | 'escalated';
}

/** A requested turn waiting for the active one to end, with what it was requested with. */
export interface QueuedTurn {
  readonly turnId: string;
  readonly request: TurnRequested['data'];
}

/** `delivered`: a queued steer turn whose message went into the running turn (it never starts). */
export type TurnOutcome = 'completed' | 'failed' | 'cancelled' | 'delivered';

/** A reminder queued on the session, and where it is: waiting, drained by a turn, or withdrawn (revoked, or replaced by one with its dedupe key). */
export interface TrackedReminder {
  readonly reminder: Reminder;
  readonly status: 'pending' | 'delivered' | 'revoked' | 'replaced';
}

/** What every opened session remembers, whatever its status. */
export interface SessionBook {
  readonly sessionId: string;
  /** In request order; the head starts next. */
  readonly queue: readonly QueuedTurn[];
  /** Every turn id ever requested: a re-submitted id is a no-op. */
  readonly knownTurnIds: ReadonlySet<string>;
  readonly finishedTurns: ReadonlyMap<string, TurnOutcome>;
  readonly closedApprovals: ReadonlyMap<string, ClosedApproval>;
  /** Every reminder ever queued, in queue order (pending ones drain FIFO). */
  readonly reminders: ReadonlyMap<string, TrackedReminder>;
}

export interface NewSession {
  readonly status: 'new';
}
export interface IdleSession extends SessionBook {
  readonly status: 'idle';
}
export interface ActiveSession extends SessionBook {
  readonly status: 'active';
  readonly activeTurn: ActiveTurn;
  /** approvalId → the tool call of the active turn it gates. */
  readonly pendingApprovals: ReadonlyMap<string, PendingApproval>;
}

/**
 * The decision state of one session, folded from its stream. `new` means the stream is empty;
 * `active` means one turn runs (the hub's "one active turn per session" invariant).
 */
export type SessionState = NewSession | IdleSession | ActiveSession;

/** The state of a session whose stream has no events. */
export const initialSessionState: SessionState = { status: 'new' };

/**
 * Applies one recorded fact. Events are facts, so this never rejects a turn-level event that
 * the decider would not have produced (a stale one changes nothing); the one exception is a
 * stream that does not begin with `SessionOpened`, which means the log itself is corrupt.
 */
export function evolveSession(state: SessionState, event: HubEvent): SessionState {
  if (state.status === 'new') return openSession(event);
  switch (event.type) {
    case 'SessionOpened':
      return state;
    case 'TurnRequested':
      return onTurnRequested(state, event.data);
    case 'TurnStarted':
      return onTurnStarted(state, event.data.turnId);
    case 'ApprovalRequested':
      return onApprovalRequested(state, event);
    case 'ApprovalVoted':
      return onApprovalVoted(state, event);
    case 'ApprovalResolved':
      return onApprovalResolved(state, event);
    case 'TurnCompleted':
      return onTurnEnded(state, event.data.turnId, 'completed');
    case 'TurnFailed':
      return onTurnEnded(state, event.data.turnId, 'failed');
    case 'TurnCancelled':
      return onTurnEnded(state, event.data.turnId, 'cancelled');
    case 'UserMessageInjected':
      return onUserMessageInjected(state, event.data.fromTurnId);
    case 'ReminderQueued':
      return onReminderQueued(state, event.data);
    case 'ReminderRevoked':
      return setReminder(state, event.data.reminderId, 'revoked');
    case 'ReminderEmitted':
      return setReminder(state, event.data.reminderId, 'delivered');
    // The turn's progress, OpenEnv episode facts recorded beside turns, where the history came
    // from (fork, re-drive) and a started turn's wait for a worker do not change what the
    // decider may decide.
    case 'MessageStarted':
    case 'ModelCallStarted':
    case 'TextDelta':
    case 'ThoughtDelta':
    case 'ModelCallCompleted':
    case 'ToolCallStarted':
    case 'ToolCallUpdated':
    case 'ToolCallCompleted':
    case 'MessageCompleted':
    case 'RewardComputed':
    case 'EpisodeReset':
    case 'SessionForked':
    case 'SessionRedriven':
    case 'TurnQueued':
      return state;
    default:
      return assertNever(event, 'HubEvent');
  }
}

/** Folds a session stream, oldest first, into its decision state. */
export function foldSession(events: Iterable<HubEvent>): SessionState {
  let state = initialSessionState;
  for (const event of events) state = evolveSession(state, event);
  return state;
}

function openSession(event: HubEvent): SessionState {
  if (event.type !== 'SessionOpened') {
    throw new DomainError('INVALID_EVENT', `a session stream must begin with SessionOpened, got ${event.type}`, {
      type: event.type,
    });
  }
  return {
    status: 'idle',
    sessionId: event.data.sessionId,
    queue: [],
    knownTurnIds: new Set(),
    finishedTurns: new Map(),
    closedApprovals: new Map(),
    reminders: new Map(),
  };
}

type OpenSession = IdleSession | ActiveSession;

function book(state: OpenSession): SessionBook {
  const { sessionId, queue, knownTurnIds, finishedTurns, closedApprovals, reminders } = state;
  return { sessionId, queue, knownTurnIds, finishedTurns, closedApprovals, reminders };
}

function onTurnRequested(state: OpenSession, request: TurnRequested['data']): OpenSession {
  if (state.knownTurnIds.has(request.turnId)) return state;
  return {
    ...state,
    queue: [...state.queue, { turnId: request.turnId, request }],
    knownTurnIds: new Set(state.knownTurnIds).add(request.turnId),
  };
}

function onTurnStarted(state: OpenSession, turnId: string): OpenSession {
  if (state.status === 'active' && state.activeTurn.turnId === turnId) return state;
  return {
    ...book(state),
    status: 'active',
    queue: state.queue.filter((q) => q.turnId !== turnId),
    knownTurnIds: state.knownTurnIds.has(turnId) ? state.knownTurnIds : new Set(state.knownTurnIds).add(turnId),
    activeTurn: { turnId, status: 'running' },
    pendingApprovals: new Map(),
  };
}

function onApprovalRequested(state: OpenSession, event: EventOf<'ApprovalRequested'>): OpenSession {
  const { turnId, approvalId, toolCallId, quorum, onExpiry, escalatedFrom } = event.data;
  if (state.status !== 'active' || state.activeTurn.turnId !== turnId) return state;
  const pendingApprovals = new Map(state.pendingApprovals);
  let closedApprovals = state.closedApprovals;
  if (escalatedFrom !== undefined && pendingApprovals.delete(escalatedFrom)) {
    closedApprovals = new Map(closedApprovals).set(escalatedFrom, { turnId, toolCallId, outcome: 'escalated' });
  }
  return {
    ...state,
    closedApprovals,
    activeTurn: { turnId, status: 'awaiting_approval' },
    pendingApprovals: pendingApprovals.set(approvalId, {
      turnId,
      toolCallId,
      ...(quorum ? { quorum, approvedBy: [] } : {}),
      ...(onExpiry ? { request: event.data } : {}),
    }),
  };
}

function onApprovalVoted(state: SessionState, event: EventOf<'ApprovalVoted'>): SessionState {
  if (state.status !== 'active') return state;
  const pending = state.pendingApprovals.get(event.data.approvalId);
  if (!pending) return state;
  const who = actorIdentity(event.data.by);
  const approvedBy = pending.approvedBy ?? [];
  if (approvedBy.includes(who)) return state;
  return { ...state, pendingApprovals: new Map(state.pendingApprovals).set(event.data.approvalId, { ...pending, approvedBy: [...approvedBy, who] }) };
}

function onApprovalResolved(state: OpenSession, event: EventOf<'ApprovalResolved'>): OpenSession {
  const { turnId, approvalId, toolCallId, decision } = event.data;
  const closedApprovals = new Map(state.closedApprovals).set(approvalId, { turnId, toolCallId, outcome: decision });
  if (state.status !== 'active') return { ...state, closedApprovals };
  const pendingApprovals = new Map(state.pendingApprovals);
  pendingApprovals.delete(approvalId);
  const status: ActiveTurnStatus = pendingApprovals.size > 0 ? 'awaiting_approval' : 'running';
  return { ...state, closedApprovals, pendingApprovals, activeTurn: { ...state.activeTurn, status } };
}

function onTurnEnded(state: OpenSession, turnId: string, outcome: TurnOutcome): OpenSession {
  const finishedTurns = new Map(state.finishedTurns).set(turnId, outcome);
  const queue = state.queue.filter((q) => q.turnId !== turnId);
  if (state.status !== 'active' || state.activeTurn.turnId !== turnId) {
    return { ...state, finishedTurns, queue };
  }
  const closedApprovals = new Map(state.closedApprovals);
  for (const [approvalId, pending] of state.pendingApprovals) {
    closedApprovals.set(approvalId, { turnId: pending.turnId, toolCallId: pending.toolCallId, outcome: 'turn_ended' });
  }
  return { ...book(state), status: 'idle', finishedTurns, queue, closedApprovals };
}

/** The queued turn was delivered into the running one: it leaves the queue and never starts. */
function onUserMessageInjected(state: OpenSession, fromTurnId: string): OpenSession {
  return {
    ...state,
    queue: state.queue.filter((q) => q.turnId !== fromTurnId),
    finishedTurns: new Map(state.finishedTurns).set(fromTurnId, 'delivered'),
  };
}

function onReminderQueued(state: OpenSession, reminder: Reminder): OpenSession {
  if (state.reminders.has(reminder.reminderId)) return state;
  const reminders = new Map(state.reminders);
  // Harn: a new reminder replaces pending ones with its dedupe key.
  for (const [id, r] of reminders) {
    if (reminder.dedupeKey !== null && r.status === 'pending' && r.reminder.dedupeKey === reminder.dedupeKey) reminders.set(id, { ...r, status: 'replaced' });
  }
  return { ...state, reminders: reminders.set(reminder.reminderId, { reminder, status: 'pending' }) };
}

function setReminder(state: OpenSession, reminderId: string, status: TrackedReminder['status']): OpenSession {
  const r = state.reminders.get(reminderId);
  if (!r || r.status !== 'pending') return state;
  return { ...state, reminders: new Map(state.reminders).set(reminderId, { ...r, status }) };
}

/** Queued turns that asked to be delivered into the running turn (`steer`), in request order. */
export function pendingSteers(state: SessionState): QueuedTurn[] {
  return state.status === 'new' ? [] : state.queue.filter((q) => isSteer(q.request.context));
}

/** Reminders not yet drained, revoked or replaced, in queue order. */
export function pendingReminders(state: SessionState): Reminder[] {
  return state.status === 'new' ? [] : [...state.reminders.values()].filter((r) => r.status === 'pending').map((r) => r.reminder);
}
