import { CancelTurn, ResolveApproval, SubmitTurn, type HubCommand } from '../commands/commands';
import { DomainError, type DomainErrorCode } from '../errors';
import type { EventOf, HubEvent } from '../events/events';
import type { CommandMetadata } from '../metadata';
import { decide, nextTurnAfterEnd } from './session-decider';
import { foldSession } from './session-state';

const SESSION = 's-1';
const actor = { type: 'api_key', id: 'key-1' } as const;
const meta: CommandMetadata = {
  commandId: 'cmd-1',
  tenantId: '00000000-0000-4000-8000-000000000001',
  now: '2025-01-01T00:00:00.000Z',
  correlationId: 'corr-1',
  actor,
  protocol: 'transport',
};

const submit = (turnId: string, extra: Partial<SubmitTurn> = {}): SubmitTurn =>
  SubmitTurn.parse({ type: 'SubmitTurn', sessionId: SESSION, turnId, prompt: `prompt ${turnId}`, ...extra });
const cancel = (turnId?: string): CancelTurn => CancelTurn.parse({ type: 'CancelTurn', sessionId: SESSION, turnId });
const resolve = (approvalId: string, decision: 'approved' | 'denied' = 'approved'): ResolveApproval =>
  ResolveApproval.parse({ type: 'ResolveApproval', sessionId: SESSION, approvalId, decision });

const opened: HubEvent = { type: 'SessionOpened', data: { sessionId: SESSION, openedVia: 'transport' } };
const requested = (turnId: string, busyPolicy: SubmitTurn['busyPolicy'] = 'enqueue'): HubEvent => ({
  type: 'TurnRequested',
  data: { turnId, userMessageId: `${turnId}:u`, prompt: `prompt ${turnId}`, context: {}, busyPolicy },
});
const started = (turnId: string): HubEvent => ({ type: 'TurnStarted', data: { turnId } });
const cancelled = (turnId: string, reason: EventOf<'TurnCancelled'>['data']['reason'] = 'user'): HubEvent => ({
  type: 'TurnCancelled',
  data: { turnId, reason, by: actor },
});
const completed = (turnId: string): HubEvent => ({
  type: 'TurnCompleted',
  data: { turnId, text: 'done', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
});
const failed = (turnId: string): HubEvent => ({
  type: 'TurnFailed',
  data: { turnId, code: 'PROVIDER_DOWN', message: 'down', retryable: false },
});
const approvalRequested = (turnId: string, approvalId: string, toolCallId = `${approvalId}-tc`): HubEvent => ({
  type: 'ApprovalRequested',
  data: {
    turnId,
    approvalId,
    toolCallId,
    toolName: 'shell',
    input: { cmd: 'rm -rf /tmp/x' },
    riskTier: 'high',
    reason: 'destructive',
    deadlineAt: null,
  },
});
const approvalResolved = (turnId: string, approvalId: string, decision: 'approved' | 'denied'): HubEvent => ({
  type: 'ApprovalResolved',
  data: { turnId, approvalId, toolCallId: `${approvalId}-tc`, decision, by: actor, via: 'transport', reason: null },
});

/** given events / when command / then events or error. */
function given(...history: HubEvent[]) {
  const state = foldSession(history);
  return {
    when: (command: HubCommand) => ({
      then: (expected: HubEvent[]) => expect(decide(command, state, meta)).toEqual(expected),
      thenFails: (code: DomainErrorCode) => {
        let thrown: unknown;
        try {
          decide(command, state, meta);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(DomainError);
        expect((thrown as DomainError).code).toBe(code);
      },
    }),
  };
}

const running = (turnId = 't1') => [opened, requested(turnId), started(turnId)];

describe('session decider: SubmitTurn', () => {
  it('opens a new session, requests and starts the turn', () => {
    given()
      .when(submit('t1'))
      .then([opened, requested('t1'), started('t1')]);
  });

  it('requests and starts at once when idle', () => {
    given(...running('t1'), completed('t1'))
      .when(submit('t2'))
      .then([requested('t2'), started('t2')]);
  });

  it('is a no-op for a turn id already known (active, queued or finished)', () => {
    given(...running('t1'))
      .when(submit('t1'))
      .then([]);
    given(...running('t1'), requested('t2'))
      .when(submit('t2'))
      .then([]);
    given(...running('t1'), completed('t1'))
      .when(submit('t1'))
      .then([]);
  });

  it('enqueues behind the active turn under busyPolicy enqueue', () => {
    given(...running('t1'))
      .when(submit('t2', { busyPolicy: 'enqueue' }))
      .then([requested('t2')]);
  });

  it('rejects with SESSION_BUSY under busyPolicy reject', () => {
    given(...running('t1'))
      .when(submit('t2', { busyPolicy: 'reject' }))
      .thenFails('SESSION_BUSY');
  });

  it('rejects while the active turn awaits an approval too', () => {
    given(...running('t1'), approvalRequested('t1', 'a1'))
      .when(submit('t2', { busyPolicy: 'reject' }))
      .thenFails('SESSION_BUSY');
  });

  it('cancels the active turn and starts the new one under busyPolicy interrupt', () => {
    given(...running('t1'), requested('t2'))
      .when(submit('t3', { busyPolicy: 'interrupt' }))
      .then([cancelled('t1', 'interrupted'), requested('t3', 'interrupt'), started('t3')]);
  });

  it('starts the oldest queued turn first when a queue was left behind while idle', () => {
    given(opened, requested('t1'))
      .when(submit('t2'))
      .then([requested('t2'), started('t1')]);
  });

  it('refuses a command addressed to another session', () => {
    given(...running('t1'))
      .when(SubmitTurn.parse({ type: 'SubmitTurn', sessionId: 'other', turnId: 't9', prompt: 'x' }))
      .thenFails('INVALID_COMMAND');
  });
});

describe('session decider: CancelTurn', () => {
  it('fails with SESSION_NOT_FOUND on a new session', () => {
    given().when(cancel()).thenFails('SESSION_NOT_FOUND');
  });

  it('cancels the active turn when no turn id is given', () => {
    given(...running('t1'))
      .when(cancel())
      .then([cancelled('t1')]);
  });

  it('cancels the active turn by id and starts the next queued turn', () => {
    given(...running('t1'), requested('t2'), requested('t3'))
      .when(cancel('t1'))
      .then([cancelled('t1'), started('t2')]);
  });

  it('cancels a queued turn, removing it from the queue', () => {
    const history = [...running('t1'), requested('t2'), requested('t3')];
    given(...history)
      .when(cancel('t2'))
      .then([cancelled('t2')]);
    given(...history, cancelled('t2'), completed('t1'))
      .when(cancel('t2'))
      .thenFails('NO_ACTIVE_TURN');
    expect(nextTurnAfterEnd(foldSession([...history, cancelled('t2'), completed('t1')]))).toEqual([started('t3')]);
  });

  it('fails with NO_ACTIVE_TURN when idle and no turn id is given', () => {
    given(opened).when(cancel()).thenFails('NO_ACTIVE_TURN');
    given(...running('t1'), completed('t1'))
      .when(cancel())
      .thenFails('NO_ACTIVE_TURN');
  });

  it('fails with NO_ACTIVE_TURN for a finished turn', () => {
    given(...running('t1'), failed('t1'), ...[requested('t2'), started('t2')])
      .when(cancel('t1'))
      .thenFails('NO_ACTIVE_TURN');
  });

  it('fails with TURN_NOT_FOUND for an unknown turn', () => {
    given(...running('t1'))
      .when(cancel('nope'))
      .thenFails('TURN_NOT_FOUND');
    given(opened).when(cancel('nope')).thenFails('TURN_NOT_FOUND');
  });
});

describe('session decider: ResolveApproval', () => {
  const awaiting = [...running('t1'), approvalRequested('t1', 'a1')];

  it('resolves a pending approval, recording who and over which protocol', () => {
    given(...awaiting)
      .when(resolve('a1', 'denied'))
      .then([
        {
          type: 'ApprovalResolved',
          data: {
            turnId: 't1',
            approvalId: 'a1',
            toolCallId: 'a1-tc',
            decision: 'denied',
            by: actor,
            via: 'transport',
            reason: null,
          },
        },
      ]);
  });

  it("records an approver's edit of the call's arguments with the approval", () => {
    const edited = ResolveApproval.parse({ type: 'ResolveApproval', sessionId: SESSION, approvalId: 'a1', decision: 'approved', input: { path: 'b.txt' } });
    given(...awaiting)
      .when(edited)
      .then([
        {
          type: 'ApprovalResolved',
          data: {
            turnId: 't1',
            approvalId: 'a1',
            toolCallId: 'a1-tc',
            decision: 'approved',
            by: actor,
            via: 'transport',
            reason: null,
            input: { path: 'b.txt' },
          },
        },
      ]);
  });

  it('refuses edited arguments with a denial (INVALID_COMMAND) rather than drop them', () => {
    const denied = ResolveApproval.parse({ type: 'ResolveApproval', sessionId: SESSION, approvalId: 'a1', decision: 'denied', input: { path: 'b.txt' } });
    given(...awaiting)
      .when(denied)
      .thenFails('INVALID_COMMAND');
  });

  it('fails with APPROVAL_ALREADY_RESOLVED for an answered approval', () => {
    given(...awaiting, approvalResolved('t1', 'a1', 'approved'))
      .when(resolve('a1'))
      .thenFails('APPROVAL_ALREADY_RESOLVED');
  });

  it('fails with APPROVAL_ALREADY_RESOLVED when the turn ended before the answer', () => {
    given(...awaiting, cancelled('t1'))
      .when(resolve('a1'))
      .thenFails('APPROVAL_ALREADY_RESOLVED');
  });

  it('fails with APPROVAL_NOT_FOUND for an unknown approval', () => {
    given(...awaiting)
      .when(resolve('a2'))
      .thenFails('APPROVAL_NOT_FOUND');
    given(opened).when(resolve('a2')).thenFails('APPROVAL_NOT_FOUND');
  });

  it('fails with SESSION_NOT_FOUND on a new session', () => {
    given().when(resolve('a1')).thenFails('SESSION_NOT_FOUND');
  });
});

describe('nextTurnAfterEnd', () => {
  it('starts the head of the queue once the active turn has ended', () => {
    const history = [...running('t1'), requested('t2'), requested('t3')];
    expect(nextTurnAfterEnd(foldSession([...history, completed('t1')]))).toEqual([started('t2')]);
    expect(nextTurnAfterEnd(foldSession([...history, failed('t1')]))).toEqual([started('t2')]);
  });

  it('starts nothing while a turn is active or when the queue is empty', () => {
    expect(nextTurnAfterEnd(foldSession([...running('t1'), requested('t2')]))).toEqual([]);
    expect(nextTurnAfterEnd(foldSession([...running('t1'), completed('t1')]))).toEqual([]);
    expect(nextTurnAfterEnd(foldSession([]))).toEqual([]);
  });
});

describe('session decider: an approval with a quorum (ADR 0048)', () => {
  const quorum = { required: 2, approvers: { roles: ['approver'] }, requesterMayApprove: false, requester: 'api_key:req' };
  const asked: HubEvent = {
    type: 'ApprovalRequested',
    data: { turnId: 't1', approvalId: 'a1', toolCallId: 'a1-tc', toolName: 'write_file', input: {}, riskTier: 'medium', reason: 'r', deadlineAt: null, quorum },
  };
  const as = (id: string, role = 'approver'): CommandMetadata => ({ ...meta, actor: { type: 'api_key', id, role } });
  const state = (...more: HubEvent[]) => foldSession([...running('t1'), asked, ...more]);
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as DomainError).code;
    }
    return null;
  };

  it('records a first approval as a vote, refuses the same key twice, the requester and a non-approver, and resolves on the second key', () => {
    const [vote] = decide(resolve('a1'), state(), as('k1'));
    expect(vote).toEqual(expect.objectContaining({ type: 'ApprovalVoted', data: expect.objectContaining({ approvals: 1, required: 2 }) }));
    expect(refusal(() => decide(resolve('a1'), state(vote), as('k1')))).toBe('APPROVAL_ALREADY_VOTED');
    expect(refusal(() => decide(resolve('a1'), state(vote), as('req', 'admin')))).toBe('APPROVAL_REQUESTER_EXCLUDED');
    expect(refusal(() => decide(resolve('a1'), state(vote), as('op', 'operator')))).toBe('APPROVER_NOT_ALLOWED');
    expect(decide(resolve('a1'), state(vote), as('k2'))).toEqual([
      expect.objectContaining({ type: 'ApprovalResolved', data: expect.objectContaining({ decision: 'approved' }) }),
    ]);
    // One denial from a named approver ends it; the hub's own answer (a deadline) is not a vote.
    expect(decide(resolve('a1', 'denied'), state(vote), as('k2'))[0]?.type).toBe('ApprovalResolved');
    expect(decide(resolve('a1', 'denied'), state(), { ...meta, actor: { type: 'system', id: 'approval-deadline' } })[0]?.type).toBe('ApprovalResolved');
  });

  it('lets a person approve under a rule that names their identity group, and refuses one outside it', () => {
    const byGroup: HubEvent = { ...asked, data: { ...asked.data, quorum: { ...quorum, required: 1, approvers: { groups: ['finance'] } } } } as HubEvent;
    const person = (sub: string, groups: string[]): CommandMetadata => ({
      ...meta,
      actor: { type: 'person', id: `https://idp.example#${sub}`, iss: 'https://idp.example', sub, role: 'approver', groups },
    });
    const groupState = foldSession([...running('t1'), byGroup]);
    expect(decide(resolve('a1'), groupState, person('fiona', ['staff', 'finance']))).toEqual([
      expect.objectContaining({ type: 'ApprovalResolved', data: expect.objectContaining({ decision: 'approved' }) }),
    ]);
    expect(refusal(() => decide(resolve('a1'), groupState, person('sam', ['staff'])))).toBe('APPROVER_NOT_ALLOWED');
    // A key has no groups: its role alone does not make it one of the group.
    expect(refusal(() => decide(resolve('a1'), groupState, as('k1')))).toBe('APPROVER_NOT_ALLOWED');
  });
});

describe('session decider: a passed deadline (ADR 0048)', () => {
  const request = (onExpiry?: EventOf<'ApprovalRequested'>['data']['onExpiry']): HubEvent => ({
    type: 'ApprovalRequested',
    data: {
      turnId: 't1',
      approvalId: 'a1',
      toolCallId: 'a1-tc',
      toolName: 'write_file',
      input: {},
      riskTier: 'medium',
      reason: 'r',
      deadlineAt: null,
      onExpiry,
    },
  });
  const hub: CommandMetadata = { ...meta, actor: { type: 'system', id: 'approval-deadline' }, protocol: 'internal' };
  const expire = ResolveApproval.parse({ type: 'ResolveApproval', sessionId: SESSION, approvalId: 'a1', decision: 'denied', expired: true });

  it('denies by default, allows when the rule says so, or escalates to a new approval that closes this one', () => {
    expect(decide(expire, foldSession([...running('t1'), request()]), hub)[0]?.data).toEqual(expect.objectContaining({ decision: 'denied' }));
    expect(decide(expire, foldSession([...running('t1'), request('allow')]), hub)[0]?.data).toEqual(expect.objectContaining({ decision: 'approved' }));
    // Only the hub's own answer applies `onExpiry`: a person's denial stays a denial.
    expect(decide(expire, foldSession([...running('t1'), request('allow')]), meta)[0]?.data).toEqual(expect.objectContaining({ decision: 'denied' }));
    const [escalated] = decide(expire, foldSession([...running('t1'), request({ escalate: { approvers: { roles: ['admin'] }, required: 1 } })]), hub);
    expect(escalated).toEqual({
      type: 'ApprovalRequested',
      data: expect.objectContaining({
        approvalId: 'a1.escalated',
        escalatedFrom: 'a1',
        deadlineAt: null,
        quorum: expect.objectContaining({ approvers: { roles: ['admin'] } }),
      }),
    });
    expect(() =>
      decide(resolve('a1'), foldSession([...running('t1'), request({ escalate: { approvers: { roles: ['admin'] }, required: 1 } }), escalated]), meta),
    ).toThrow('already escalated');
  });

  it('gives the escalation the deadline its rule names, counted from the escalation (ADR 0050); passing it denies', () => {
    const rule = { escalate: { approvers: { roles: ['admin' as const] }, required: 1, afterSeconds: 90 } };
    const escalated = decide(expire, foldSession([...running('t1'), request(rule)]), hub);
    expect(escalated[0]?.data).toEqual(
      expect.objectContaining({ approvalId: 'a1.escalated', deadlineAt: new Date(Date.parse(hub.now) + 90_000).toISOString() }),
    );
    expect((escalated[0]?.data as { onExpiry?: unknown }).onExpiry).toBeUndefined();
    const again = ResolveApproval.parse({ type: 'ResolveApproval', sessionId: SESSION, approvalId: 'a1.escalated', decision: 'denied', expired: true });
    expect(decide(again, foldSession([...running('t1'), request(rule), ...escalated]), hub)).toEqual([
      expect.objectContaining({ type: 'ApprovalResolved', data: expect.objectContaining({ approvalId: 'a1.escalated', decision: 'denied' }) }),
    ]);
  });
});
