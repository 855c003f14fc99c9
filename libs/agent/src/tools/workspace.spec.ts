import type { HubEvent } from '@hub/domain';
import { SEED_FILES, workspaceFromEvents } from './workspace';

const started = (turnId: string, toolCallId: string, name: string, input: unknown): HubEvent => ({
  type: 'ToolCallStarted',
  data: { turnId, messageId: 'm', toolCallId, name, input, policy: 'allow', executor: 'builtin' },
});
const completed = (turnId: string, toolCallId: string, status: 'complete' | 'error' | 'denied'): HubEvent => ({
  type: 'ToolCallCompleted',
  data: { turnId, toolCallId, status, output: 'x', durationMs: 1 },
});

describe('workspaceFromEvents', () => {
  it('starts from the seed files', () => {
    expect(Object.fromEntries(workspaceFromEvents([]))).toEqual(SEED_FILES);
    expect(Object.keys(SEED_FILES)).toEqual(expect.arrayContaining(['README.md', 'notes.txt', 'data/numbers.csv']));
  });

  it('applies completed writes and deletes in log order', () => {
    const files = workspaceFromEvents([
      started('t1', 'c1', 'write_file', { path: './out/a.txt', content: 'one' }),
      completed('t1', 'c1', 'complete'),
      started('t1', 'c2', 'write_file', { path: 'out/a.txt', content: 'two' }),
      completed('t1', 'c2', 'complete'),
      started('t1', 'c3', 'delete_file', { path: 'notes.txt' }),
      completed('t1', 'c3', 'complete'),
    ]);
    expect(files.get('out/a.txt')).toBe('two');
    expect(files.has('notes.txt')).toBe(false);
    expect(files.get('README.md')).toBe(SEED_FILES['README.md']);
  });

  it('ignores denied, failed, unfinished and non-file calls', () => {
    const files = workspaceFromEvents([
      started('t1', 'c1', 'write_file', { path: 'denied.txt', content: 'x' }),
      completed('t1', 'c1', 'denied'),
      started('t1', 'c2', 'delete_file', { path: 'notes.txt' }),
      completed('t1', 'c2', 'error'),
      started('t1', 'c3', 'write_file', { path: 'pending.txt', content: 'x' }),
      started('t1', 'c4', 'read_file', { path: 'README.md' }),
      completed('t1', 'c4', 'complete'),
      completed('t1', 'c9', 'complete'),
    ]);
    expect(Object.fromEntries(files)).toEqual(SEED_FILES);
  });

  it('matches a completion to the start of the same turn when call ids repeat across turns', () => {
    const files = workspaceFromEvents([
      started('t1', 'call_0', 'write_file', { path: 'a.txt', content: 'first' }),
      started('t2', 'call_0', 'delete_file', { path: 'README.md' }),
      completed('t1', 'call_0', 'complete'),
      completed('t2', 'call_0', 'denied'),
    ]);
    expect(files.get('a.txt')).toBe('first');
    expect(files.has('README.md')).toBe(true);
  });

  it('does not mutate the seed', () => {
    workspaceFromEvents([started('t', 'c', 'delete_file', { path: 'notes.txt' }), completed('t', 'c', 'complete')]);
    expect(SEED_FILES['notes.txt']).toBeDefined();
    expect(workspaceFromEvents([]).has('notes.txt')).toBe(true);
  });
});
