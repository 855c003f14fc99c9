import { turnTimelines, type StepEvent } from './turn-steps';

/** Events of one session, with times `ms` after a start and the actor given (a worker `w1` by default). */
function log(steps: [ms: number, type: string, data: Record<string, unknown>, actor?: { type: string; id: string; name?: string }][]): StepEvent[] {
  const t0 = Date.parse('2026-11-26T10:00:00.000Z');
  return steps.map(([ms, type, data, actor], i) => ({
    type,
    data,
    streamPosition: i + 1,
    createdAt: new Date(t0 + ms).toISOString(),
    metadata: { actor: actor ?? { type: 'worker', id: 'w1' } },
  }));
}
const key = { type: 'api_key', id: 'hub_k', name: 'ops' };
const usage = { promptTokens: 12, completionTokens: 3, totalTokens: 15 };

describe('turn steps', () => {
  it('draws queue, model, tool and approval bars whose durations are their events’ time apart', () => {
    const events = log([
      [0, 'TurnRequested', { turnId: 't' }, key],
      [40, 'TurnStarted', { turnId: 't' }],
      [50, 'ModelCallStarted', { turnId: 't', callId: 'c0', model: 'echo', provider: 'offline' }],
      [170, 'ModelCallCompleted', { turnId: 't', callId: 'c0', usage }],
      [180, 'ToolCallStarted', { turnId: 't', toolCallId: 'x', name: 'delete_file', executor: 'builtin' }],
      [185, 'ApprovalRequested', { turnId: 't', approvalId: 'a', toolName: 'delete_file' }],
      [2185, 'ApprovalResolved', { turnId: 't', approvalId: 'a', decision: 'approved', by: key }, key],
      [2200, 'ToolCallCompleted', { turnId: 't', toolCallId: 'x', status: 'complete' }],
      [2300, 'TurnCompleted', { turnId: 't' }],
    ]);
    const [turn] = turnTimelines(events);
    expect(turn).toEqual(expect.objectContaining({ turnId: 't', status: 'completed', end: turn.start + 2300, position: 1 }));
    expect(turn.steps.map((s) => [s.kind, s.label, s.end - s.start, s.outcome, s.detail, s.positions])).toEqual([
      ['queue', 'queue', 40, 'ok', 'waiting for a worker', [1, 2]],
      ['model', 'model echo', 120, 'ok', '12 tokens in, 3 out', [3, 4]],
      ['tool', 'tool delete_file', 2020, 'ok', 'on builtin, complete', [5, 8]],
      ['approval', 'approval of delete_file', 2000, 'ok', 'approved by ops', [6, 7]],
    ]);
  });

  it('marks a worker that died: its open model call interrupted, the time until another took over a retry', () => {
    const events = log([
      [0, 'TurnRequested', { turnId: 't' }, key],
      [10, 'TurnStarted', { turnId: 't' }],
      [20, 'ModelCallStarted', { turnId: 't', callId: 'c0', model: 'echo', provider: 'offline' }],
      [5020, 'TurnStarted', { turnId: 't' }, { type: 'worker', id: 'w2' }],
      [5030, 'ModelCallStarted', { turnId: 't', callId: 'c0', model: 'echo', provider: 'offline' }, { type: 'worker', id: 'w2' }],
      [5100, 'ModelCallCompleted', { turnId: 't', callId: 'c0', usage }, { type: 'worker', id: 'w2' }],
      [5200, 'TurnFailed', { turnId: 't' }, { type: 'worker', id: 'w2' }],
    ]);
    const [turn] = turnTimelines(events);
    expect(turn.status).toBe('failed');
    expect(turn.steps.map((s) => [s.kind, s.start - turn.start, s.end - s.start, s.outcome])).toEqual([
      ['queue', 0, 10, 'ok'],
      ['model', 20, 0, 'interrupted'],
      ['retry', 20, 5000, 'interrupted'],
      ['model', 5030, 70, 'ok'],
    ]);
    expect(turn.steps[2].detail).toBe('worker w1 died; w2 took over');
  });

  it('a model call the new worker goes on with (no second ModelCallStarted) is drawn from the takeover to its completion', () => {
    const events = log([
      [0, 'TurnRequested', { turnId: 't' }, key],
      [10, 'TurnStarted', { turnId: 't' }],
      [20, 'ModelCallStarted', { turnId: 't', callId: 'c0', model: 'echo', provider: 'offline' }],
      [300, 'TextDelta', { turnId: 't', text: 'a' }],
      [2300, 'TextDelta', { turnId: 't', text: 'b' }, { type: 'worker', id: 'w2' }],
      [2900, 'ModelCallCompleted', { turnId: 't', callId: 'c0', usage }, { type: 'worker', id: 'w2' }],
      [3000, 'TurnCompleted', { turnId: 't' }, { type: 'worker', id: 'w2' }],
    ]);
    const [turn] = turnTimelines(events);
    expect(turn.steps.map((s) => [s.kind, s.start - turn.start, s.end - s.start, s.outcome])).toEqual([
      ['queue', 0, 10, 'ok'],
      ['model', 20, 280, 'interrupted'],
      ['retry', 300, 2000, 'interrupted'],
      ['model', 2300, 600, 'ok'],
    ]);
    expect(turn.steps[3].detail).toMatch(/^continued after the takeover; /);
  });

  it('a turn cancelled with its approval pending marks the wait and the tool call cancelled; an open turn draws to its last event', () => {
    const events = log([
      [0, 'TurnRequested', { turnId: 'a' }, key],
      [5, 'TurnStarted', { turnId: 'a' }],
      [10, 'ToolCallStarted', { turnId: 'a', toolCallId: 'x', name: 'rm', executor: 'mcp:fs' }],
      [20, 'ApprovalRequested', { turnId: 'a', approvalId: 'p', toolName: 'rm' }],
      [25, 'TurnRequested', { turnId: 'b' }, key],
      [900, 'TurnCancelled', { turnId: 'a' }, key],
      [950, 'TurnStarted', { turnId: 'b' }],
      [960, 'ModelCallStarted', { turnId: 'b', callId: 'c', model: 'echo', provider: 'offline' }],
    ]);
    const [a, b] = turnTimelines(events);
    expect(a.steps.map((s) => [s.kind, s.end - s.start, s.outcome])).toEqual([
      ['queue', 5, 'ok'],
      ['tool', 890, 'cancelled'],
      ['approval', 880, 'cancelled'],
    ]);
    expect(b.status).toBe('running');
    expect(b.steps.map((s) => [s.kind, s.end - s.start, s.outcome])).toEqual([
      ['queue', 925, 'ok'],
      ['model', 0, 'open'],
    ]);
  });
});
