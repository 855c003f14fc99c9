import { subscribes, webhookEventOf, type LogEvent } from './event-types';

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

  it('subscribes by type or wildcard', () => {
    expect(subscribes(['turn.completed'], 'turn.completed')).toBe(true);
    expect(subscribes(['turn.completed'], 'turn.failed')).toBe(false);
    expect(subscribes(['*'], 'anything')).toBe(true);
  });
});
