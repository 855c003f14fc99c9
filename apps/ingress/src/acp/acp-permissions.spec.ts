import { PermissionRequests, type PermissionDecision } from './acp-permissions';

describe('PermissionRequests', () => {
  let sent: { id?: string; method: string; params: unknown }[];
  let decided: PermissionDecision[];
  let p: PermissionRequests;
  beforeEach(() => {
    jest.useFakeTimers();
    sent = [];
    decided = [];
    p = new PermissionRequests(
      (m) => sent.push(m as never),
      (d) => decided.push(d),
      1000,
    );
  });
  afterEach(() => jest.useRealTimers());

  it('turns an ACP answer into a decision, once', () => {
    p.ask('s', 'a1', {});
    expect(sent[0]).toEqual(expect.objectContaining({ id: 'perm-1', method: 'session/request_permission' }));
    expect(p.answer('perm-1', { outcome: { outcome: 'selected', optionId: 'allow-once' } }, undefined)).toBe(true);
    expect(p.answer('perm-1', { granted: false }, undefined)).toBe(false);
    expect(decided).toEqual([{ sessionId: 's', approvalId: 'a1', decision: 'approved', reason: null }]);
  });

  it('fails closed on a client error, an unknown answer and silence', () => {
    p.ask('s', 'a1', {});
    p.ask('s', 'a2', {});
    p.ask('s', 'a3', {});
    p.answer('perm-1', undefined, { code: -32603, message: 'boom' });
    p.answer('perm-2', { whatever: true }, undefined);
    jest.advanceTimersByTime(1001);
    expect(decided.map((d) => [d.approvalId, d.decision])).toEqual([
      ['a1', 'denied'],
      ['a2', 'denied'],
      ['a3', 'denied'],
    ]);
  });

  it('withdraws a request resolved elsewhere with $/cancel_request and decides nothing', () => {
    p.ask('s', 'a1', {});
    p.withdraw('a1');
    jest.advanceTimersByTime(5000);
    expect(sent[1]).toEqual(expect.objectContaining({ method: '$/cancel_request', params: { requestId: 'perm-1' } }));
    expect(decided).toEqual([]);
  });
});
