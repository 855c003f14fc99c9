import type { HubEvent } from '@hub/domain';
import { RecordedTools, callKey } from './recorded-tools';

const started = (turnId: string, toolCallId: string, name: string, input: unknown): HubEvent => ({
  type: 'ToolCallStarted',
  data: { turnId, messageId: `${turnId}:a`, toolCallId, name, input, policy: 'allow', executor: 'builtin' },
});
const completed = (turnId: string, toolCallId: string, output: string, status: 'complete' | 'error' | 'denied' = 'complete'): HubEvent => ({
  type: 'ToolCallCompleted',
  data: { turnId, toolCallId, status, output, durationMs: 1 },
});

describe('RecordedTools', () => {
  const recorded = RecordedTools.fromEvents([
    started('t1', 'c1', 'read_file', { path: 'f.txt' }),
    completed('t1', 'c1', 'one'),
    started('t1', 'c2', 'write_file', { path: 'f.txt', content: 'two' }),
    completed('t1', 'c2', 'denied by a person', 'denied'),
    started('t1', 'c3', 'read_file', { path: 'f.txt' }),
    completed('t1', 'c3', 'still one'),
    started('t2', 'c1', 'read_file', { path: 'f.txt' }),
    completed('t2', 'c1', 'later'),
    started('t2', 'c9', 'list_files', {}),
  ]);

  it('serves the n-th identical call of a turn the n-th recorded result, keys in any order', () => {
    expect(recorded.find('t1', 'read_file', { path: 'f.txt' }, 0)).toEqual({ status: 'complete', output: 'one' });
    expect(recorded.find('t1', 'read_file', { path: 'f.txt' }, 1)).toEqual({ status: 'complete', output: 'still one' });
    expect(recorded.find('t2', 'read_file', { path: 'f.txt' }, 0)).toEqual({ status: 'complete', output: 'later' });
    expect(recorded.find('t1', 'write_file', { content: 'two', path: 'f.txt' }, 0)).toEqual({ status: 'denied', output: 'denied by a person' });
  });

  it('falls back to the first such call anywhere, and serves nothing for other arguments or calls that never completed', () => {
    expect(recorded.find('t3', 'read_file', { path: 'f.txt' }, 0)?.output).toBe('one');
    expect(recorded.find('t1', 'read_file', { path: 'g.txt' }, 0)).toBeUndefined();
    expect(recorded.find('t2', 'list_files', {}, 0)).toBeUndefined();
  });

  it('keys calls by name and arguments, whatever their key order', () => {
    expect(callKey('w', { a: 1, b: [1, { d: 2, c: 3 }] })).toBe(callKey('w', { b: [1, { c: 3, d: 2 }], a: 1 }));
    expect(callKey('w', { a: 1 })).not.toBe(callKey('x', { a: 1 }));
  });
});
