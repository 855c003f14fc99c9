import type { HubEvent } from '../events/events';

/**
 * The deadline the log recorded for an approval: its `ApprovalRequested`'s `deadlineAt` (null: it
 * has none), or undefined when the log has no request with that id. A request is never rewritten,
 * so this answer is the same whenever it is read.
 */
export function recordedDeadline(events: readonly HubEvent[], approvalId: string): string | null | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'ApprovalRequested' && e.data.approvalId === approvalId) return e.data.deadlineAt ?? null;
  }
  return undefined;
}

/**
 * Whether an expiry job scheduled for `jobDeadline` is the approval's own: the deadline is
 * scheduled before the request is appended (ADR 0050), so a worker that died between the two left
 * a job for a request the log never got, and the re-driven turn records a later deadline. That
 * earlier job must not expire the approval the log holds. A job without a deadline (queued by an
 * older hub) is taken as the approval's.
 */
export function isOwnDeadline(events: readonly HubEvent[], approvalId: string, jobDeadline: string | undefined): boolean {
  if (jobDeadline === undefined) return true;
  const recorded = recordedDeadline(events, approvalId);
  return recorded !== undefined && recorded !== null && Date.parse(recorded) === Date.parse(jobDeadline);
}
