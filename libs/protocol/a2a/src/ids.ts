import { SESSION_ID_PATTERN } from '@hub/domain';

/** A task is one turn of one session; its id names both. */
export interface TaskRef {
  sessionId: string;
  turnId: string;
}

/**
 * `<session id>/<turn id>`. A session id has no `/` (SESSION_ID_PATTERN), so the first `/` splits
 * them again: `GetTask` and `CancelTask` carry only the task id, and this way any turn of any
 * protocol has an A2A task id, with no table to keep.
 */
export function taskIdOf(ref: TaskRef): string {
  return `${ref.sessionId}/${ref.turnId}`;
}

/** The session and turn a task id names, or null when it is not one of ours. */
export function parseTaskId(taskId: string): TaskRef | null {
  const slash = taskId.indexOf('/');
  if (slash <= 0 || slash === taskId.length - 1) return null;
  const sessionId = taskId.slice(0, slash);
  return SESSION_ID_PATTERN.test(sessionId) ? { sessionId, turnId: taskId.slice(slash + 1) } : null;
}

/** The turn an A2A message starts: deterministic, so the same message sent twice is one turn. */
export const turnIdOfMessage = (messageId: string) => `a2a-${messageId}`;

/**
 * The session of a message without `contextId`: `a2a-<messageId>` when that is a valid session
 * id (a resent message lands in the same session), else a new id from the edge.
 */
export function newContextId(messageId: string, newId: () => string): string {
  const fromMessage = `a2a-${messageId}`;
  return SESSION_ID_PATTERN.test(fromMessage) ? fromMessage : `a2a-${newId()}`;
}
