import { JOBS, assertProcessorsCover } from './catalog';

const meta = { commandId: 'c1', tenantId: '11111111-1111-4111-8111-111111111111', now: 'x', correlationId: 'k', actor: { type: 'api_key' as const, id: 'a' }, protocol: 'transport' as const };

describe('job catalog', () => {
  it('boots only when every job has exactly one processor', () => {
    expect(() => assertProcessorsCover(['command', 'runTurn', 'expireApproval'])).not.toThrow();
    expect(() => assertProcessorsCover(['command', 'runTurn'])).toThrow(/expireApproval: 0 processors/);
    expect(() => assertProcessorsCover(['command', 'command', 'runTurn', 'expireApproval'])).toThrow(/command: 2 processors/);
    expect(() => assertProcessorsCover(['command', 'runTurn', 'expireApproval', 'mystery'])).toThrow(/mystery: not in the job catalog/);
  });

  it('derives job ids from the idempotency key, per tenant', () => {
    const cmd = { type: 'CancelTurn' as const, sessionId: 's', reason: 'user' as const };
    const a = JOBS.command.jobId({ command: cmd, meta });
    expect(JOBS.command.jobId({ command: cmd, meta })).toBe(a);
    expect(JOBS.command.jobId({ command: cmd, meta: { ...meta, commandId: 'c2' } })).not.toBe(a);
    expect(JOBS.command.jobId({ command: { ...cmd, reason: 'timeout' }, meta })).not.toBe(a);
    expect(JOBS.command.jobId({ command: cmd, meta: { ...meta, tenantId: '22222222-2222-4222-8222-222222222222' } })).not.toBe(a);
    expect(a).not.toContain(':'); // BullMQ refuses ':' in custom ids
  });

  it('gives a resume after an approval its own job id', () => {
    const p = { tenantId: meta.tenantId, sessionId: 's', turnId: 't', reason: 'start' as const, trace: { correlationId: 'k' } };
    expect(JOBS.runTurn.jobId(p, 'start')).not.toBe(JOBS.runTurn.jobId(p, 'approval:a1'));
  });
});
