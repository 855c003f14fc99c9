import { foldBatch } from '../apply-batch';
import type { ProjectionDef, Row } from '../projection';
import { SessionScript } from '../testing/events';
import { approvalsProjection, type ApprovalRow } from './approvals';
import { ACTIVITY_GRANULARITY_MS, sessionsProjection, titleOf, type SessionRow } from './sessions';
import { turnsProjection, type TurnRow } from './turns';

const T = '11111111-1111-4111-8111-111111111111';

function fold<R extends Row>(def: ProjectionDef<R>, s: SessionScript): R[] {
  return foldBatch(def, s.events, []).changed;
}

describe('sessions fold', () => {
  it('counts turns and usage, titles from the first prompt, tracks approvals and ends idle', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1').turnWithApproval('t2');
    const [row] = fold(sessionsProjection, s) as SessionRow[];
    expect(row).toEqual(
      expect.objectContaining({
        tenant_id: T,
        session_id: 's1',
        status: 'idle',
        opened_via: 'transport',
        title: 'please run t1',
        turn_count: 2,
        pending_approvals: 0,
        active_turn_id: null,
        total_tokens: 30,
        prompt_tokens: 20,
      }),
    );
    expect(row.last_position).toBe(s.events[s.events.length - 1].globalPosition);
    expect(row.last_activity_at).toBe(s.events[s.events.length - 1].createdAt);
  });

  it('is awaiting_approval with one pending while a request is open', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1');
    const upToRequest = s.events.slice(0, s.events.findIndex((e) => e.type === 'ApprovalRequested') + 1);
    const [row] = foldBatch(sessionsProjection, upToRequest, []).changed;
    expect(row).toEqual(expect.objectContaining({ status: 'awaiting_approval', pending_approvals: 1, active_turn_id: 't1' }));
  });

  it('moves last activity for a text delta at most once per ACTIVITY_GRANULARITY_MS, so a streaming turn rewrites its row twice, not per window', () => {
    const s = new SessionScript(T, 's1');
    s.add({ type: 'SessionOpened', data: { sessionId: 's1', openedVia: 'transport' } });
    s.add({ type: 'TurnRequested', data: { turnId: 't1', userMessageId: 't1:u', prompt: 'go', context: {}, busyPolicy: 'enqueue' } });
    const started = s.add({ type: 'TurnStarted', data: { turnId: 't1' } });
    // SessionScript's events are 100 ms apart: the deltas span ACTIVITY_GRANULARITY_MS and a bit.
    const deltas = Array.from({ length: ACTIVITY_GRANULARITY_MS / 100 + 2 }, (_, i) =>
      s.add({ type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 't1:c0', offset: i, text: 'x' } }),
    );
    const before = foldBatch(sessionsProjection, s.events.slice(0, 3), []).changed as SessionRow[];
    // Each delta folded as its own batch onto what was written, as a live runner does.
    let row = before[0];
    const written: string[] = [];
    for (const d of deltas) {
      const { changed } = foldBatch(sessionsProjection, [d], [row]);
      if (changed.length > 0) {
        row = changed[0] as SessionRow;
        written.push(d.createdAt);
      }
    }
    // Only the delta ACTIVITY_GRANULARITY_MS after the turn's start moved the row.
    expect(written).toEqual([deltas[ACTIVITY_GRANULARITY_MS / 100 - 1].createdAt]);
    expect(Date.parse(written[0]) - Date.parse(started.createdAt)).toBe(ACTIVITY_GRANULARITY_MS);
    expect(row.last_position).toBe(deltas[ACTIVITY_GRANULARITY_MS / 100 - 1].globalPosition);
    // A turn's end moves it at once, and one batch of everything gives the same row (a rebuild).
    const ended = s.add({
      type: 'TurnCompleted',
      data: { turnId: 't1', text: 'x', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
    });
    const [last] = foldBatch(sessionsProjection, [ended], [row]).changed as SessionRow[];
    expect(last).toEqual(expect.objectContaining({ status: 'idle', last_position: ended.globalPosition, last_activity_at: ended.createdAt }));
    expect(foldBatch(sessionsProjection, s.events, []).changed).toEqual([last]);
  });

  it('shortens long titles at a word', () => {
    const title = titleOf('word '.repeat(40)) as string;
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title.endsWith('word…')).toBe(true);
    expect(titleOf('  \n ')).toBeNull();
  });
});

describe('turns fold', () => {
  it('records status, timings, model, calls, usage and how each turn ended', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1').turnWithApproval('t2', 'cancel');
    const rows = fold(turnsProjection, s) as TurnRow[];
    const t1 = rows.find((r) => r.turn_id === 't1') as TurnRow;
    const t2 = rows.find((r) => r.turn_id === 't2') as TurnRow;
    expect(t1).toEqual(
      expect.objectContaining({
        status: 'completed',
        provider: 'offline',
        model: 'echo',
        model_calls: 1,
        tool_calls: 1,
        total_tokens: 15,
        end_reason: 'end_turn',
        error_code: null,
        requested_via: 'transport',
      }),
    );
    expect(t1.duration_ms).toBe(Date.parse(t1.ended_at as string) - Date.parse(t1.started_at as string));
    expect(t2).toEqual(expect.objectContaining({ status: 'cancelled', end_reason: 'user' }));
  });

  it('a failed turn keeps its error code', () => {
    const s = new SessionScript(T, 's1');
    s.add({ type: 'SessionOpened', data: { sessionId: 's1', openedVia: 'zene' } });
    s.add({ type: 'TurnRequested', data: { turnId: 't', userMessageId: 'u', prompt: 'x', context: {}, busyPolicy: 'reject' } });
    s.add({ type: 'TurnStarted', data: { turnId: 't' } });
    s.add({ type: 'TurnFailed', data: { turnId: 't', code: 'PROVIDER_DOWN', message: 'no', retryable: true } });
    expect(fold(turnsProjection, s)).toEqual([expect.objectContaining({ status: 'failed', error_code: 'PROVIDER_DOWN' })]);
  });
});

describe('approvals fold', () => {
  it('keeps who answered, how, via which protocol, when and why', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1');
    const [a] = fold(approvalsProjection, s) as ApprovalRow[];
    const resolved = s.events.find((e) => e.type === 'ApprovalResolved');
    expect(a).toEqual(
      expect.objectContaining({
        approval_id: 't1:a0',
        tool_name: 'shell',
        arguments: { cmd: 'ls' },
        risk_tier: 'high',
        requested_via: 'transport',
        status: 'resolved',
        decision: 'approved',
        resolved_by: { type: 'api_key', id: 'k2', name: 'ops' },
        resolved_via: 'openharness',
        resolution_reason: 'fine',
        resolved_at: resolved?.createdAt,
        updated_position: resolved?.globalPosition,
      }),
    );
  });

  it("a turn's end abandons what is still pending", () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1', 'cancel');
    expect(fold(approvalsProjection, s)).toEqual([
      expect.objectContaining({
        status: 'resolved',
        decision: 'abandoned',
        resolved_by: { type: 'api_key', id: 'k2' },
        resolved_via: 'acp',
        resolution_reason: 'the turn cancelled first',
      }),
    ]);
  });
});

describe('foldBatch', () => {
  it('skips and counts an event type it does not know, and still moves the checkpoint past it', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1');
    s.add({ type: 'SomethingFromTheFuture', data: { x: 1 } });
    const folded = foldBatch(sessionsProjection, s.events, []);
    expect(folded.advance).toEqual(
      expect.objectContaining({ skipped: 1, lastSkippedType: 'SomethingFromTheFuture', position: s.events[s.events.length - 1].globalPosition }),
    );
    expect(folded.changed).toHaveLength(1);
  });

  it('writes only rows the batch changed', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1');
    const first = foldBatch(turnsProjection, s.events, []).changed;
    const tail = new SessionScript(T, 's1', { position: 100, time: Date.parse('2026-11-23T11:00:00.000Z') });
    tail.add({ type: 'TurnRequested', data: { turnId: 't9', userMessageId: 'u', prompt: 'x', context: {}, busyPolicy: 'enqueue' } });
    const second = foldBatch(turnsProjection, tail.events, first).changed;
    expect(second.map((r) => r.turn_id)).toEqual(['t9']);
  });
});
