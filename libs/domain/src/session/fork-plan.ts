import { DomainError } from '../errors';
import type { HubEvent } from '../events/events';
import type { Recorded } from '../events/recorded';
import type { EventMetadata } from '../metadata';
import { evolveSession, initialSessionState, type SessionState } from './session-state';

/** A new event of a fork: a copy of a parent event, or the closing `SessionForked`. */
export interface ForkEvent {
  type: HubEvent['type'];
  data: unknown;
  metadata: EventMetadata;
}

export interface ForkPlan {
  /** The copies of the parent's history, then `SessionForked`: one append on the child's stream. */
  events: ForkEvent[];
  /** The parent's cursor the fork was taken at (the last copied event's global position). */
  at: number;
}

/**
 * Plans a fork of `parent` (its whole stream, oldest first) at cursor `at` (a global position;
 * omitted: its end). A fork may only be taken where the session is at rest: no turn running,
 * queued or waiting for an approval, so the child never holds half a tool call. Elsewhere it is
 * refused with the nearest cursors where it may be taken (`details.nearestValidCursors`).
 *
 * Each copy keeps its type, data and metadata (who did it, via which protocol, when: the
 * original's time is kept as `metadata.forkedFrom.createdAt`); only `SessionOpened` names the
 * child. Pure.
 */
export function planFork(parent: readonly Recorded<HubEvent>[], childSessionId: string, at: number | undefined, metadata: EventMetadata): ForkPlan {
  const parentSessionId = parent.find((e) => e.type === 'SessionOpened')?.data.sessionId;
  if (parent.length === 0 || parentSessionId === undefined) throw new DomainError('SESSION_NOT_FOUND', 'the session to fork does not exist');
  const restingAt = restingCursors(parent);
  const head = parent[parent.length - 1].globalPosition;
  // A cursor between two of this session's events (other sessions share the global order)
  // means the state as of the last event at or before it.
  const copied = parent.filter((e) => e.globalPosition <= (at ?? head));
  const target = copied.at(-1)?.globalPosition;
  if (at !== undefined && at > head) throw notAtRest(parentSessionId, at, head, [...restingAt]);
  if (target === undefined || !restingAt.has(target)) throw notAtRest(parentSessionId, at ?? head, head, [...restingAt]);
  const events: ForkEvent[] = copied.map((e) => ({
    type: e.type,
    data: e.type === 'SessionOpened' ? { ...e.data, sessionId: childSessionId } : e.data,
    metadata: {
      ...e.metadata,
      forkedFrom: {
        sessionId: parentSessionId,
        eventId: e.eventId,
        streamPosition: e.streamPosition,
        globalPosition: e.globalPosition,
        createdAt: e.createdAt,
      },
    },
  }));
  const last = copied[copied.length - 1];
  events.push({
    type: 'SessionForked',
    data: { parentSessionId, parentCursor: last.globalPosition, parentStreamPosition: last.streamPosition, copiedEvents: copied.length },
    metadata,
  });
  return { events, at: last.globalPosition };
}

/** The cursors after which the session is at rest: opened, and no turn active or queued. */
export function restingCursors(events: readonly Recorded<HubEvent>[]): Set<number> {
  const resting = new Set<number>();
  let state: SessionState = initialSessionState;
  for (const e of events) {
    state = evolveSession(state, e);
    if (state.status === 'idle' && state.queue.length === 0) resting.add(e.globalPosition);
  }
  return resting;
}

function notAtRest(sessionId: string, at: number, head: number, resting: number[]): DomainError {
  const before = resting.filter((c) => c < at).at(-1);
  const after = resting.find((c) => c > at);
  const nearest = [before, after].filter((c): c is number => c !== undefined);
  const where =
    at > head
      ? `after the session's last event (${head})`
      : before === undefined
        ? 'before the session was first at rest'
        : 'inside a turn (a turn is running, queued or waiting for an approval there)';
  const hint = nearest.length ? `; the nearest cursors a fork may be taken at: ${nearest.join(' and ')}` : '; the session has no cursor at rest yet';
  return new DomainError('INVALID_COMMAND', `cannot fork session ${sessionId} at cursor ${at}: it is ${where}${hint}`, { nearestValidCursors: nearest });
}
