import type { DeltaOperation, HarnessState } from '@hub/domain';
import { applyOps } from '@hub/domain';
import { applyPatch } from 'fast-json-patch';
import { patchOf, pointer } from './state-patch';

const base: HarnessState = { status: 'running', messages: [{ id: 'm/1', role: 'assistant', content: 'Hel', status: 'streaming' }] };

/** The patch, applied with fast-json-patch to a copy, must give what the ops give. */
function agrees(state: HarnessState, ops: DeltaOperation[]) {
  const { state: next, patch } = patchOf(state, ops);
  expect(next).toEqual(applyOps(state, ops));
  expect(applyPatch(structuredClone(state), patch, true, false).newDocument).toEqual(next);
  return patch;
}

describe('patchOf: transport ops as RFC 6902', () => {
  it('a new array entry is add at its index, an existing leaf a replace', () => {
    const patch = agrees(base, [
      { type: 'set', path: ['messages', '1'], value: { id: 'm2', role: 'user', content: 'x', status: 'complete' } },
      { type: 'set', path: ['messages', '0', 'status'], value: 'complete' },
    ]);
    expect(patch.map((p) => [p.op, p.path])).toEqual([
      ['add', '/messages/1'],
      ['replace', '/messages/0/status'],
    ]);
  });

  it('appends to one string coalesce into one replace of the whole string', () => {
    const patch = agrees(base, [
      { type: 'append-text', path: ['messages', '0', 'content'], value: 'lo' },
      { type: 'append-text', path: ['messages', '0', 'content'], value: ' world' },
    ]);
    expect(patch).toEqual([{ op: 'replace', path: '/messages/0/content', value: 'Hello world' }]);
  });

  it('a key that does not exist yet is add, with missing parents nested in the value', () => {
    const patch = agrees(base, [
      { type: 'set', path: ['queued'], value: null },
      { type: 'set', path: ['messages', '0', 'toolCalls'], value: [{ id: 't', name: 'calc', status: 'running' }] },
    ]);
    expect(patch.map((p) => p.op)).toEqual(['add', 'add']);
    expect(patchOf(base, [{ type: 'set', path: ['a', 'b'], value: 1 } as DeltaOperation]).patch).toEqual([{ op: 'add', path: '/a', value: { b: 1 } }]);
  });

  it('the root set (a turn after a failed one) is a replace of the document', () => {
    const failed: HarnessState = { ...base, status: 'error', error: 'down' };
    const { error: _e, ...rest } = failed;
    const patch = agrees(failed, [{ type: 'set', path: [], value: { ...rest, status: 'running' } }]);
    expect(patch).toEqual([{ op: 'replace', path: '', value: { ...rest, status: 'running' } }]);
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(pointer(['a/b', 'c~d'])).toBe('/a~1b/c~0d');
  });
});
