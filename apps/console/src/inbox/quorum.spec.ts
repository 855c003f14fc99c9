import { approvedByText, countText, mayStillApproveText } from './quorum';

describe('quorum texts (ADR 0048)', () => {
  const terms = { required: 2, approvers: { roles: ['admin', 'approver'] }, requesterMayApprove: false };

  it('says how many approvals it has and needs, and from whom the rest may come', () => {
    expect(countText({ approvals: 1, required: 2 })).toBe('1 of 2 approvals');
    expect(mayStillApproveText({ ...terms, approvals: 0 })).toBe('2 more from role admin or role approver, not the requester');
    expect(mayStillApproveText({ ...terms, approvals: 1 })).toBe('1 more from role admin or role approver, not the requester, not who approved already');
    expect(mayStillApproveText({ ...terms, approvers: { keys: ['hub_ab12'] }, requesterMayApprove: true, approvals: 1 })).toBe(
      '1 more from key hub_ab12, not who approved already',
    );
    expect(mayStillApproveText({ ...terms, approvers: null, approvals: 2 })).toBe('');
  });

  it('names who approved', () => {
    expect(approvedByText([])).toBe('no approval yet');
    expect(
      approvedByText([
        { by: { type: 'api_key', id: 'hub_a', name: 'first', role: 'approver' } },
        { by: { type: 'api_key', id: 'hub_b', name: 'second', role: 'admin' } },
      ]),
    ).toBe('approved by first (approver), second (admin)');
  });
});
