import { approvalsOf } from './approvals-at';
import type { LoggedEvent } from './useEventLog';

const ev = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as LoggedEvent;
const key = (name: string, role: string) => ({ type: 'api_key', id: `hub_${name}`, name, role });

describe('approvals at a cursor', () => {
  const asked = ev('ApprovalRequested', {
    approvalId: 'a1',
    toolName: 'write_file',
    policy: { version: 3, rule: 'two-approvers', ruleIndex: 0 },
    quorum: { required: 2, approvers: { roles: ['approver'] }, requesterMayApprove: false, requester: 'api_key:hub_admin' },
  });
  const voted = ev('ApprovalVoted', { approvalId: 'a1', by: key('first', 'approver'), via: 'internal', approvals: 1, required: 2 });
  const resolved = ev('ApprovalResolved', { approvalId: 'a1', decision: 'approved', by: key('second', 'approver'), via: 'acp' });

  it('names the rule and policy version, and counts the votes up to the cursor', () => {
    expect(approvalsOf([asked, voted])).toEqual([
      expect.objectContaining({
        status: 'pending',
        policy: { version: 3, rule: 'two-approvers', ruleIndex: 0 },
        votes: [{ by: key('first', 'approver'), via: 'internal' }],
        resolvedBy: null,
      }),
    ]);
    const [done] = approvalsOf([asked, voted, resolved]);
    expect([done.status, done.votes.map((v) => v.by.name), done.resolvedBy?.via]).toEqual(['approved', ['first', 'second'], 'acp']);
  });

  it('an approval under the built-in policy has no rule, and one answer decides it', () => {
    const plain = ev('ApprovalRequested', { approvalId: 'b', toolName: 'delete_file', policy: { version: 0, rule: 'delete_file', ruleIndex: null } });
    const [b] = approvalsOf([plain, ev('ApprovalResolved', { approvalId: 'b', decision: 'denied', by: key('x', 'admin'), via: 'transport' })]);
    expect([b.policy, b.quorum, b.votes, b.status]).toEqual([null, null, [], 'denied']);
  });
});
