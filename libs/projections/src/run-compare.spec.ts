import type { HubEvent } from '@hub/domain';
import { compareRuns } from './run-compare';

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
function run(turnId: string, opts: { text?: string; output?: string; model?: string; end?: 'completed' | 'failed' | 'none' } = {}): HubEvent[] {
  const events: HubEvent[] = [
    { type: 'TurnRequested', data: { turnId, userMessageId: `${turnId}:u`, prompt: `prompt ${turnId}`, context: {}, busyPolicy: 'enqueue' } },
    { type: 'TurnStarted', data: { turnId } },
    { type: 'ModelCallStarted', data: { turnId, callId: 'm1', step: 0, provider: 'offline', model: opts.model ?? 'offline', messageCount: 1, toolNames: [] } },
    {
      type: 'ToolCallStarted',
      data: { turnId, messageId: `${turnId}:a`, toolCallId: 'c1', name: 'read_file', input: { path: 'a' }, policy: 'allow', executor: 'builtin' },
    },
    { type: 'ToolCallCompleted', data: { turnId, toolCallId: 'c1', status: 'complete', output: opts.output ?? 'x', durationMs: 1 } },
    { type: 'ModelCallCompleted', data: { turnId, callId: 'm1', step: 0, text: opts.text ?? 'done', toolCalls: [], finishReason: 'stop', usage } },
  ];
  if (opts.end === 'failed') events.push({ type: 'TurnFailed', data: { turnId, code: 'INTERNAL', message: 'x', retryable: false } });
  else if (opts.end !== 'none') events.push({ type: 'TurnCompleted', data: { turnId, text: opts.text ?? 'done', stopReason: 'end_turn', usage } });
  return events;
}

describe('compareRuns', () => {
  it('finds identical turns the same, whatever model ran them', () => {
    const r = compareRuns([...run('t1'), ...run('t2')], [...run('t1', { model: 'other' }), ...run('t2', { model: 'other' })]);
    expect(r.summary).toEqual({ turns: 2, same: 2, different: 0, pending: 0 });
    expect(r.turns[0].rerun?.model).toBe('other');
  });

  it('names each field that differs, and counts unfinished re-run turns as pending', () => {
    const r = compareRuns(
      [...run('t1'), ...run('t2'), ...run('t3')],
      [...run('t1', { text: 'other' }), ...run('t2', { output: 'y', end: 'failed' }), ...run('t3', { end: 'none' })],
    );
    expect(r.turns.map((t) => t.differences)).toEqual([['text'], ['status', 'toolCalls[0].output'], ['status']]);
    expect(r.summary).toEqual({ turns: 3, same: 0, different: 2, pending: 1 });
  });

  it('compares the turns named, in that order, a missing one as pending', () => {
    const r = compareRuns([...run('t1'), ...run('t2')], run('t1'), ['t1', 't2']);
    expect(r.turns.map((t) => [t.turnId, t.same, t.differences])).toEqual([
      ['t1', true, []],
      ['t2', false, ['turn']],
    ]);
    expect(r.summary).toEqual({ turns: 2, same: 1, different: 0, pending: 1 });
  });
});
