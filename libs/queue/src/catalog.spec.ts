import { JOBS, assertProcessorsCover } from './catalog';

const tenantId = '11111111-1111-4111-8111-111111111111';

describe('job catalog', () => {
  it('boots only when every job has exactly one processor', () => {
    expect(() => assertProcessorsCover(['runTurn', 'expireApproval'])).not.toThrow();
    expect(() => assertProcessorsCover(['runTurn'])).toThrow(/expireApproval: 0 processors/);
    expect(() => assertProcessorsCover(['runTurn', 'runTurn', 'expireApproval'])).toThrow(/runTurn: 2 processors/);
    expect(() => assertProcessorsCover(['runTurn', 'expireApproval', 'command'])).toThrow(/command: not in the job catalog/);
  });

  it('derives job ids from the subject and key, per tenant', () => {
    const p = { tenantId, sessionId: 's', turnId: 't', reason: 'start' as const, trace: { correlationId: 'k' } };
    const a = JOBS.runTurn.jobId(p, 'start');
    expect(JOBS.runTurn.jobId({ ...p, reason: 'recover' }, 'start')).toBe(a); // the reason is for logs only
    expect(JOBS.runTurn.jobId({ ...p, turnId: 't2' }, 'start')).not.toBe(a);
    expect(JOBS.runTurn.jobId({ ...p, tenantId: '22222222-2222-4222-8222-222222222222' }, 'start')).not.toBe(a);
    expect(a).not.toContain(':'); // BullMQ refuses ':' in custom ids
  });

  it('gives a resume after an approval its own job id', () => {
    const p = { tenantId, sessionId: 's', turnId: 't', reason: 'start' as const, trace: { correlationId: 'k' } };
    expect(JOBS.runTurn.jobId(p, 'start')).not.toBe(JOBS.runTurn.jobId(p, 'approval:a1'));
  });
});
