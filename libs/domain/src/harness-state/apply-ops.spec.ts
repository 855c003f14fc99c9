import { applyOps } from './apply-ops';
import type { DeltaOperation, JSONValue } from './harness-state';

describe('applyOps', () => {
  it('sets a value, replacing what was there', () => {
    expect(applyOps({ status: 'idle', n: 1 }, [{ type: 'set', path: ['status'], value: 'running' }])).toEqual({
      status: 'running',
      n: 1,
    });
  });

  it('replaces the whole state on an empty path', () => {
    expect(applyOps<JSONValue>({ a: 1 }, [{ type: 'set', path: [], value: [1, 2] }])).toEqual([1, 2]);
  });

  it('creates missing objects along the path', () => {
    expect(applyOps<JSONValue>({}, [{ type: 'set', path: ['a', 'b'], value: true }])).toEqual({ a: { b: true } });
  });

  it('sets array items by decimal index, appending at the length', () => {
    const state = { messages: ['a'] };
    expect(applyOps(state, [{ type: 'set', path: ['messages', '1'], value: 'b' }])).toEqual({ messages: ['a', 'b'] });
    expect(applyOps(state, [{ type: 'set', path: ['messages', '0'], value: 'z' }])).toEqual({ messages: ['z'] });
  });

  it('refuses an index past the end or not a decimal', () => {
    const state = { messages: ['a'] };
    for (const key of ['2', '-1', 'x', '01', '1.5']) {
      expect(() => applyOps(state, [{ type: 'set', path: ['messages', key], value: 'b' }])).toThrow(/not an index/);
    }
  });

  it('appends text to a string', () => {
    const ops: DeltaOperation[] = [
      { type: 'append-text', path: ['m', '0', 'content'], value: 'Hello' },
      { type: 'append-text', path: ['m', '0', 'content'], value: ' world' },
    ];
    expect(applyOps({ m: [{ content: '' }] }, ops)).toEqual({ m: [{ content: 'Hello world' }] });
  });

  it('refuses to append to a missing value or a non-string', () => {
    expect(() => applyOps({ n: 1 }, [{ type: 'append-text', path: ['n'], value: 'x' }])).toThrow(/number, not a string/);
    expect(() => applyOps({}, [{ type: 'append-text', path: ['s'], value: 'x' }])).toThrow(/missing/);
  });

  it('refuses a path through a primitive', () => {
    expect(() => applyOps({ s: 'text' }, [{ type: 'set', path: ['s', 'x'], value: 1 }])).toThrow(/runs through string/);
  });

  it('never mutates its input', () => {
    const state = { status: 'idle', messages: [{ content: 'a' }] };
    const copy = structuredClone(state);
    applyOps(state, [
      { type: 'set', path: ['status'], value: 'running' },
      { type: 'append-text', path: ['messages', '0', 'content'], value: 'b' },
      { type: 'set', path: ['messages', '1'], value: {} },
    ]);
    expect(state).toEqual(copy);
  });

  it('treats "__proto__" as a plain key', () => {
    const next = applyOps<JSONValue>({}, [{ type: 'set', path: ['__proto__', 'polluted'], value: true }]);
    expect(Object.hasOwn(next as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
