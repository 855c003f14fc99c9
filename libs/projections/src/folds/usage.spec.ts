import { foldBatch } from '../apply-batch';
import { SessionScript } from '../testing/events';
import { addTotals, emptyTotals } from '../usage-reads';
import { usageProjection, type UsageRow } from './usage';

const T = '11111111-1111-4111-8111-111111111111';

const fold = (s: SessionScript) => foldBatch(usageProjection, s.events, []).changed as UsageRow[];
const at = (s: SessionScript, type: string, n = 0) => s.events.filter((e) => e.type === type)[n].createdAt;

describe('usage fold', () => {
  it('attributes a turn to the key and day of its request, with its calls, tokens and approval wait', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1').turnWithApproval('t2', 'cancel');
    const rows = fold(s);
    const t1 = rows.find((r) => r.turn_id === 't1') as UsageRow;
    const t2 = rows.find((r) => r.turn_id === 't2') as UsageRow;
    expect(t1).toEqual(
      expect.objectContaining({
        day: '2026-11-23',
        key_prefix: 'k1',
        outcome: 'completed',
        model_calls: 1,
        prompt_tokens: 10,
        completion_tokens: 5,
        tool_calls: { builtin: 1 },
        approvals: 1,
        waiting: {},
      }),
    );
    expect(t1.approval_wait_ms).toBe(Date.parse(at(s, 'ApprovalResolved')) - Date.parse(at(s, 'ApprovalRequested')));
    // Cancelled with its approval pending: no answer, no wait counted, nothing left waiting.
    expect(t2).toEqual(expect.objectContaining({ outcome: 'cancelled', approvals: 0, approval_wait_ms: 0, waiting: {}, tool_calls: { builtin: 1 } }));
  });

  it('keeps an approval waiting until its answer, and counts tool calls per executor', () => {
    const s = new SessionScript(T, 's1').turnWithApproval('t1');
    const upToRequest = s.events.slice(0, s.events.findIndex((e) => e.type === 'ApprovalRequested') + 1);
    s.add({ type: 'ToolCallStarted', data: { turnId: 't1', messageId: 'm', toolCallId: 'x', name: 'fetch', input: {}, policy: 'allow', executor: 'mcp:web' } });
    const [open] = foldBatch(usageProjection, upToRequest, []).changed as UsageRow[];
    expect(open).toEqual(expect.objectContaining({ outcome: null, waiting: { 't1:a0': at(s, 'ApprovalRequested') } }));
    expect(fold(s)[0].tool_calls).toEqual({ builtin: 1, 'mcp:web': 1 });
  });

  it('has no key for a turn no key requested, and a day of its own past midnight', () => {
    const s = new SessionScript(T, 's1', { position: 1, time: Date.parse('2026-11-23T23:59:59.950Z') });
    s.add(
      { type: 'TurnRequested', data: { turnId: 't', userMessageId: 'u', prompt: 'x', context: {}, busyPolicy: 'enqueue' } },
      { actor: { type: 'system', id: 'scheduler' } },
    );
    s.add({ type: 'TurnFailed', data: { turnId: 't', code: 'X', message: 'no', retryable: false } });
    expect(fold(s)).toEqual([expect.objectContaining({ day: '2026-11-24', key_prefix: null, outcome: 'failed' })]);
  });

  it('adds totals field by field, tool calls by executor', () => {
    const a = { ...emptyTotals(), modelCalls: 2, toolCalls: { builtin: 1 }, turns: { ...emptyTotals().turns, completed: 1 } };
    const b = { ...emptyTotals(), modelCalls: 3, approvalWaitMs: 7, toolCalls: { builtin: 2, mcp: 1 }, turns: { ...emptyTotals().turns, failed: 2 } };
    expect(addTotals(a, b)).toEqual({
      ...emptyTotals(),
      modelCalls: 5,
      approvalWaitMs: 7,
      toolCalls: { builtin: 3, mcp: 1 },
      turns: { completed: 1, failed: 2, cancelled: 0, delivered: 0, open: 0 },
    });
  });
});
