import type { HubEvent } from '../events/events';
import { isOwnDeadline, recordedDeadline } from './approval-deadline';

const requested = (approvalId: string, deadlineAt: string | null): HubEvent =>
  ({
    type: 'ApprovalRequested',
    data: { turnId: 't1', approvalId, toolCallId: `${approvalId}-tc`, toolName: 'write_file', input: {}, riskTier: 'medium', reason: 'r', deadlineAt },
  }) as HubEvent;

const log = [requested('a1', '2026-11-28T10:05:00.000Z'), requested('a2', null)];

it('reads the deadline an approval was requested with', () => {
  expect(recordedDeadline(log, 'a1')).toBe('2026-11-28T10:05:00.000Z');
  expect(recordedDeadline(log, 'a2')).toBeNull();
  expect(recordedDeadline(log, 'a3')).toBeUndefined();
});

it("takes a job for the recorded deadline as the approval's own, and not one for an earlier deadline", () => {
  expect(isOwnDeadline(log, 'a1', '2026-11-28T10:05:00.000Z')).toBe(true);
  expect(isOwnDeadline(log, 'a1', '2026-11-28T10:05:00Z')).toBe(true); // the same instant, written otherwise
  // The worker that scheduled this died before appending; the re-drive recorded 10:05.
  expect(isOwnDeadline(log, 'a1', '2026-11-28T10:04:30.000Z')).toBe(false);
  expect(isOwnDeadline(log, 'a3', '2026-11-28T10:05:00.000Z')).toBe(false); // never requested
  expect(isOwnDeadline(log, 'a2', '2026-11-28T10:05:00.000Z')).toBe(false); // requested without a deadline
  expect(isOwnDeadline(log, 'a1', undefined)).toBe(true); // a job from an older hub
});
