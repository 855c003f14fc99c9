import { DOMAIN_ERROR_CODES } from '@hub/domain';
import { negotiateCapabilities } from './capabilities';
import { parseContinuationToken } from './continuation';
import { CONTINUE_ACTION_TYPE, encodeError, encodeReply, type ReplyView } from './encode';
import { WIRE_ERROR_CODES, wireErrorFromDomain, wireErrorFromTurnFailure } from './errors';

const NOW = Date.parse('2025-01-01T00:00:00.000Z');
const view: ReplyView = {
  echo: { request_id: 'r1' },
  capabilities: negotiateCapabilities({}),
  sessionId: 's1',
  turnId: 'oh-r1',
  delivered: 0,
  nowMs: NOW,
  latencyMs: 7,
};
const approval = (over: Record<string, unknown> = {}) => ({
  turnId: 'oh-r1',
  approvalId: 'ap1',
  toolCallId: 'c1',
  toolName: 'delete_file',
  input: { path: 'a.txt' },
  riskTier: 'high' as const,
  reason: 'deletes',
  deadlineAt: null as string | null,
  ...over,
});

describe('encodeReply', () => {
  it('an approval: request_approval with risk tier, no deadline when none applies, and a continuation that remembers the text sent', () => {
    const body = encodeReply({ kind: 'awaiting_approval', text: 'Deleting.', approvals: [approval()] }, view).body;
    const [msg, ask] = body.response.action_directives ?? [];
    expect(msg).toEqual(expect.objectContaining({ action_type: 'render_message', payload: { text: 'Deleting.' } }));
    expect(ask).toEqual(expect.objectContaining({ action_type: 'request_approval', requires_user_approval: true, risk_tier: 'dangerous' }));
    expect(ask).not.toHaveProperty('deadline_ms');
    const cont = ask.payload?.['continuation'] as { run_id: string; continuation_token: string };
    expect(cont.run_id).toBe('oh-r1');
    expect(parseContinuationToken(cont.continuation_token)).toEqual({ sessionId: 's1', turnId: 'oh-r1', approvalId: 'ap1', delivered: 9 });
  });

  it('deadline_ms is relative to now, and 0 once passed', () => {
    const inAMinute = encodeReply({ kind: 'awaiting_approval', text: '', approvals: [approval({ deadlineAt: '2025-01-01T00:01:00.000Z' })] }, view);
    expect(inAMinute.body.response.action_directives?.[0]?.deadline_ms).toBe(60_000);
    const past = encodeReply({ kind: 'awaiting_approval', text: '', approvals: [approval({ deadlineAt: '2024-12-31T23:59:00.000Z' })] }, view);
    expect(past.body.response.action_directives?.[0]?.deadline_ms).toBe(0);
  });

  it('renders only the rest of the answer after a continuation', () => {
    const reply = encodeReply({ kind: 'completed', text: 'Deleting.Done.' }, { ...view, delivered: 9 });
    expect(reply.body.response.action_directives).toEqual([expect.objectContaining({ payload: { text: 'Done.' } })]);
    expect(reply.body.response.engine_latency_ms).toBe(7);
  });

  it('a turn still running: success with a continue directive to collect the rest', () => {
    const reply = encodeReply({ kind: 'pending', text: 'wor' }, view);
    expect(reply.httpStatus).toBe(200);
    expect(reply.body.response.status).toBe('success');
    const next = reply.body.response.action_directives?.at(-1);
    expect(next?.action_type).toBe(CONTINUE_ACTION_TYPE);
    const token = (next?.payload?.['continuation'] as { continuation_token: string }).continuation_token;
    expect(parseContinuationToken(token)).toEqual({ sessionId: 's1', turnId: 'oh-r1', delivered: 3 });
    expect(next?.payload).not.toHaveProperty('queued');
  });

  it('a turn waiting for a worker (ADR 0033): the continue directive says so, and since when', () => {
    const queued = { reason: 'capacity', since: '2024-12-31T23:59:58.000Z' };
    const next = encodeReply({ kind: 'pending', text: '', queued }, view).body.response.action_directives?.at(-1);
    expect(next?.action_type).toBe(CONTINUE_ACTION_TYPE);
    expect(next?.payload).toEqual(
      expect.objectContaining({ queued, message: expect.stringContaining('waiting for a worker'), continuation: expect.anything() }),
    );
  });
});

describe('wire errors', () => {
  it('engine_timeout (retryable) only for a turn that timed out', () => {
    expect(wireErrorFromTurnFailure('TIMEOUT', 'slow', false)).toEqual(expect.objectContaining({ code: 'engine_timeout', retryable: true, httpStatus: 504 }));
    expect(wireErrorFromTurnFailure('PROVIDER_DOWN', 'down', true)).toEqual(expect.objectContaining({ code: 'engine_unavailable', retryable: true }));
    expect(wireErrorFromTurnFailure('SOMETHING_NEW', 'x', false).code).toBe('engine_error');
  });

  it('every domain code has a wire code; internal errors keep their text to themselves', () => {
    for (const code of DOMAIN_ERROR_CODES) expect(WIRE_ERROR_CODES).toContain(wireErrorFromDomain(code, 'm').code);
    expect(wireErrorFromDomain('INTERNAL', 'stack trace at /srv/x.ts').message).toBe('internal error');
    expect(wireErrorFromTurnFailure('INTERNAL', 'stack trace', false).message).toBe('internal error');
  });

  it("a used-up tenant limit is 429 rate_limited, retryable, with its wait in details and as the reply's Retry-After", () => {
    const error = wireErrorFromDomain('RATE_LIMITED', 'this tenant may run 2 turns at once', 1_500);
    expect(error).toEqual({
      code: 'rate_limited',
      message: 'this tenant may run 2 turns at once',
      retryable: true,
      httpStatus: 429,
      details: { hub_code: 'RATE_LIMITED', retry_after_ms: 1_500 },
      retryAfterS: 2,
    });
    const reply = encodeError(error, { request_id: 'r-1' });
    expect(reply.httpStatus).toBe(429);
    expect(reply.retryAfterS).toBe(2);
    expect(reply.body.response).toEqual(
      expect.objectContaining({
        status: 'error',
        error: {
          code: 'rate_limited',
          message: 'this tenant may run 2 turns at once',
          retryable: true,
          details: { hub_code: 'RATE_LIMITED', retry_after_ms: 1_500 },
        },
      }),
    );
    // Without a wait, nothing is said about one.
    expect(wireErrorFromDomain('SESSION_BUSY', 'busy')).not.toHaveProperty('retryAfterS');
    expect(encodeError(wireErrorFromDomain('SESSION_BUSY', 'busy'), { request_id: 'r-2' })).not.toHaveProperty('retryAfterS');
  });
});
