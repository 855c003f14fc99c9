import { subscribes, webhookEventsOf, type LogEvent } from './event-types';

const webhookEventOf = (e: LogEvent) => webhookEventsOf(e)[0] ?? null;

const at = '2026-11-26T12:00:00.000Z';
const ev = (type: string, data: unknown, streamId = 'session-s1'): LogEvent => ({ type, data, tenantId: 't', streamId, globalPosition: 7, createdAt: at });

describe('log events to webhook events', () => {
  it('maps the subscribed types, and only session streams', () => {
    expect(webhookEventOf(ev('SessionOpened', { sessionId: 's1', openedVia: 'transport' }))).toEqual({
      type: 'session.opened',
      timestamp: at,
      data: { sessionId: 's1', position: 7, openedVia: 'transport' },
    });
    expect(webhookEventOf(ev('TurnFailed', { turnId: 'u', code: 'X', message: 'm', retryable: false }))?.type).toBe('turn.failed');
    expect(webhookEventOf(ev('TextDelta', { turnId: 'u', text: 'x' }))).toBeNull();
    expect(webhookEventOf(ev('TenantCreated', { tenantId: 't', name: 'n' }, 'tenant-admin'))).toBeNull();
  });

  it('carries what the inbox shows of an approval request', () => {
    const w = webhookEventOf(
      ev('ApprovalRequested', {
        turnId: 'u',
        approvalId: 'a',
        toolCallId: 'c',
        toolName: 'write_file',
        input: { path: 'x' },
        riskTier: 'high',
        reason: 'writes',
        deadlineAt: null,
      }),
    );
    expect(w).toEqual({
      type: 'approval.requested',
      timestamp: at,
      data: {
        sessionId: 's1',
        position: 7,
        approvalId: 'a',
        turnId: 'u',
        toolCallId: 'c',
        tool: 'write_file',
        arguments: { path: 'x' },
        risk: 'high',
        reason: 'writes',
        deadlineAt: null,
      },
    });
  });

  it('tells a decision from the deadline (approval.expired) from a decision by someone', () => {
    const resolved = (by: unknown) =>
      webhookEventOf(ev('ApprovalResolved', { turnId: 'u', approvalId: 'a', toolCallId: 'c', decision: 'denied', by, via: 'internal', reason: null }))?.type;
    expect(resolved({ type: 'system', id: 'approval-deadline' })).toBe('approval.expired');
    expect(resolved({ type: 'api_key', id: 'hub_x' })).toBe('approval.resolved');
  });

  it('sends approval.expired for every answer of the deadline, its outcome saying which (ADR 0050)', () => {
    const deadline = { type: 'system', id: 'approval-deadline' };
    const byDeadline = (decision: string) =>
      webhookEventsOf(ev('ApprovalResolved', { turnId: 'u', approvalId: 'a', toolCallId: 'c', decision, by: deadline, via: 'internal', reason: 'r' }));
    expect(byDeadline('denied')).toEqual([{ type: 'approval.expired', timestamp: at, data: expect.objectContaining({ approvalId: 'a', outcome: 'denied' }) }]);
    expect(byDeadline('approved')).toEqual([
      { type: 'approval.expired', timestamp: at, data: expect.objectContaining({ approvalId: 'a', outcome: 'allowed' }) },
    ]);
    // An escalation: the first approval expired, and its escalation's approvers are asked (with its own deadline).
    const escalation = ev('ApprovalRequested', {
      turnId: 'u',
      approvalId: 'a.escalated',
      toolCallId: 'c',
      toolName: 'refund',
      input: { amount: 5 },
      riskTier: 'high',
      reason: 'asks (escalated: nobody answered by the deadline)',
      deadlineAt: '2026-11-26T12:05:00.000Z',
      escalatedFrom: 'a',
    });
    expect(webhookEventsOf(escalation)).toEqual([
      {
        type: 'approval.expired',
        timestamp: at,
        data: {
          sessionId: 's1',
          position: 7,
          approvalId: 'a',
          turnId: 'u',
          outcome: 'escalated',
          escalatedTo: 'a.escalated',
          decision: null,
          by: deadline,
          via: 'internal',
          reason: 'nobody answered by the deadline',
        },
      },
      {
        type: 'approval.requested',
        timestamp: at,
        data: expect.objectContaining({ approvalId: 'a.escalated', escalatedFrom: 'a', deadlineAt: '2026-11-26T12:05:00.000Z' }),
      },
    ]);
    // A person's answer is no expiry, and carries no outcome.
    const person = webhookEventsOf(
      ev('ApprovalResolved', {
        turnId: 'u',
        approvalId: 'a',
        toolCallId: 'c',
        decision: 'denied',
        by: { type: 'api_key', id: 'k' },
        via: 'http',
        reason: null,
      }),
    );
    expect(person.map((w) => [w.type, w.data.outcome])).toEqual([['approval.resolved', undefined]]);
  });

  it('subscribes by type or wildcard', () => {
    expect(subscribes(['turn.completed'], 'turn.completed')).toBe(true);
    expect(subscribes(['turn.completed'], 'turn.failed')).toBe(false);
    expect(subscribes(['*'], 'anything')).toBe(true);
  });
});
