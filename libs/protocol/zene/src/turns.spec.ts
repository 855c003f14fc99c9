import type { HubEvent, Recorded } from '@hub/domain';
import { hubSessionIdOf, planRun, resultOfTurn, turnContextOf, turnIdOf, turnKeyOf, turnOfRequest } from './turns';

let pos = 0;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
function rec(event: HubEvent, atMs = T0): Recorded<HubEvent> {
  pos++;
  return {
    ...event,
    eventId: `e${pos}`,
    tenantId: 't',
    streamId: 'session-s',
    streamPosition: pos,
    globalPosition: pos,
    createdAt: new Date(atMs).toISOString(),
    metadata: { correlationId: 'c' },
  } as Recorded<HubEvent>;
}
const usage = { promptTokens: 5, completionTokens: 6, totalTokens: 11 };
const requested = (turnId: string, requestId: string) =>
  rec({
    type: 'TurnRequested',
    data: { turnId, userMessageId: `${turnId}:u`, prompt: 'p', context: { zene: { request_id: requestId } }, busyPolicy: 'reject' },
  });
const completed = (turnId: string, atMs = T0) => rec({ type: 'TurnCompleted', data: { turnId, text: 'answer', stopReason: 'end_turn', usage } }, atMs);
const failed = (turnId: string, code: string, retryable: boolean) => rec({ type: 'TurnFailed', data: { turnId, code, message: `${code}!`, retryable } });
const cancelled = (turnId: string, reason: 'user' | 'timeout') => rec({ type: 'TurnCancelled', data: { turnId, reason, by: { type: 'system', id: 'x' } } });

const key = turnKeyOf({ request_id: 'r1', idempotency_key: 'msg-1' });
const t1 = turnIdOf(key, 1);
const t2 = turnIdOf(key, 2);

describe('planRun (idempotency)', () => {
  it('keys and turn ids: by idempotency key, else by request id; generations differ', () => {
    expect(key).toBe('k:msg-1');
    expect(turnKeyOf({ request_id: 'r1', idempotency_key: null })).toBe('r:r1');
    expect(new Set([t1, t2, turnIdOf('r:msg-1', 1)]).size).toBe(3);
  });

  it('a first request starts generation 1', () => expect(planRun([], key, T0)).toEqual({ kind: 'start', turnId: t1 }));

  it('a repeat while the first runs joins it, naming the first request', () => {
    expect(planRun([requested(t1, 'r1')], key, T0)).toEqual({ kind: 'join', turnId: t1, firstRequestId: 'r1', ended: false });
  });

  it('a repeat after completion within the window replays it', () => {
    const log = [requested(t1, 'r1'), completed(t1)];
    expect(planRun(log, key, T0 + 599_000)).toEqual({ kind: 'join', turnId: t1, firstRequestId: 'r1', ended: true });
  });

  it('after the window, the same key is a new turn (clawbridge keys repeat with the prompt)', () => {
    expect(planRun([requested(t1, 'r1'), completed(t1)], key, T0 + 601_000)).toEqual({ kind: 'start', turnId: t2 });
  });

  it.each([
    ['a timeout', () => cancelled(t1, 'timeout')],
    ['a cancel', () => cancelled(t1, 'user')],
    ['a retryable failure', () => failed(t1, 'PROVIDER_DOWN', true)],
  ])('after %s, a repeat is a retry: the next generation', (_n, end) => {
    expect(planRun([requested(t1, 'r1'), end()], key, T0)).toEqual({ kind: 'start', turnId: t2 });
  });

  it('a final failure is replayed like a result', () => {
    expect(planRun([requested(t1, 'r1'), failed(t1, 'PROVIDER_AUTH', false)], key, T0)).toEqual(expect.objectContaining({ kind: 'join', ended: true }));
  });

  it('a repeat of the key with another prompt is a conflict, running or replayable; the same prompt still joins (issue 11, defect 9)', () => {
    expect(planRun([requested(t1, 'r1')], key, T0, undefined, 'other')).toEqual({ kind: 'conflict', turnId: t1, firstRequestId: 'r1' });
    expect(planRun([requested(t1, 'r1'), completed(t1)], key, T0, undefined, 'other')).toEqual({ kind: 'conflict', turnId: t1, firstRequestId: 'r1' });
    expect(planRun([requested(t1, 'r1')], key, T0, undefined, 'p')).toEqual(expect.objectContaining({ kind: 'join' }));
    // a retry (the first timed out) may carry another prompt: it is the next generation
    expect(planRun([requested(t1, 'r1'), cancelled(t1, 'timeout')], key, T0, undefined, 'other')).toEqual({ kind: 'start', turnId: t2 });
  });

  it('walks generations: the running second one is joined', () => {
    const log = [requested(t1, 'r1'), cancelled(t1, 'timeout'), requested(t2, 'r2')];
    expect(planRun(log, key, T0)).toEqual({ kind: 'join', turnId: t2, firstRequestId: 'r2', ended: false });
  });
});

describe('resultOfTurn', () => {
  it('null while running; completed text and usage; failures mapped; timeout vs cancel', () => {
    expect(resultOfTurn([requested('a', 'r')], 'a')).toBeNull();
    expect(resultOfTurn([requested('a', 'r'), completed('a')], 'a')).toEqual({
      kind: 'ok',
      text: 'answer',
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    });
    expect(resultOfTurn([requested('a', 'r'), failed('a', 'SESSION_BUSY', true)], 'a')).toEqual(
      expect.objectContaining({ kind: 'failed', code: 'BUSY', message: 'SESSION_BUSY!' }),
    );
    expect(resultOfTurn([requested('a', 'r'), cancelled('a', 'timeout')], 'a')).toEqual(expect.objectContaining({ kind: 'timeout' }));
    expect(resultOfTurn([requested('a', 'r'), cancelled('a', 'user')], 'a')).toEqual(expect.objectContaining({ kind: 'canceled', reason: 'user' }));
    expect(resultOfTurn([requested('b', 'r'), completed('b')], 'a')).toBeNull();
  });
});

describe('sessions and context', () => {
  it('a session id in the hub alphabet is kept; others map to a stable hashed id', () => {
    expect(hubSessionIdOf('qq:private:u1')).toBe('qq:private:u1');
    const odd = hubSessionIdOf('用户 42');
    expect(odd).toMatch(/^zene-h\.[0-9a-f]{16}$/);
    expect(hubSessionIdOf('用户 42')).toBe(odd);
    expect(hubSessionIdOf('用户 43')).not.toBe(odd);
    expect(hubSessionIdOf('x'.repeat(200))).toMatch(/^zene-h\./);
  });

  it('channel_id and agent travel in the turn context', () => {
    expect(turnContextOf({ type: 'run', request_id: 'r', session_id: 's', prompt: 'p', channel_id: 'qq', agent: 'default' })).toEqual({
      zene: { request_id: 'r', channel_id: 'qq', agent: 'default' },
    });
  });

  it('turnOfRequest finds the turn a request started, and whether it ended', () => {
    const log = [requested('a', 'r1'), requested('b', 'r2'), completed('a')];
    expect(turnOfRequest(log, 'r1')).toEqual({ turnId: 'a', ended: true });
    expect(turnOfRequest(log, 'r2')).toEqual({ turnId: 'b', ended: false });
    expect(turnOfRequest(log, 'nope')).toBeNull();
  });
});
