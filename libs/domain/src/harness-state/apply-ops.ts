import type { DeltaOperation, JSONValue } from './harness-state';

type JSONObject = { [key: string]: JSONValue };

/**
 * Applies delta operations in order, as a client does, without mutating `state`:
 * `set` replaces the value at the path (creating missing objects on the way; an array index
 * may be at most the array's length, which appends), `append-text` appends to the string at
 * the path. An empty path addresses the whole state.
 *
 * @throws Error when a path runs through a non-container, an array index is not a decimal in
 * range, or `append-text` targets something that is not a string. The error means the client
 * and server disagree about the state; resync from a snapshot.
 */
export function applyOps<S extends JSONValue>(state: S, ops: readonly DeltaOperation[]): S {
  let next: JSONValue = state;
  for (const op of ops) next = applyOp(next, op);
  // The ops come from the projection of the same type; their shape is the server's contract.
  return next as S;
}

function applyOp(state: JSONValue, op: DeltaOperation): JSONValue {
  switch (op.type) {
    case 'set':
      return updateAt(state, op.path, 0, () => op.value);
    case 'append-text':
      return updateAt(state, op.path, 0, (current) => {
        if (typeof current !== 'string') {
          throw new Error(`append-text at [${op.path.join(', ')}]: target is ${describe(current)}, not a string`);
        }
        return current + op.value;
      });
    default: {
      const unknown: never = op;
      throw new Error(`unknown delta operation ${JSON.stringify(unknown)}`);
    }
  }
}

function updateAt(node: JSONValue | undefined, path: readonly string[], depth: number, update: (current: JSONValue | undefined) => JSONValue): JSONValue {
  if (depth === path.length) return update(node);
  const key = path[depth] as string;
  const container = node ?? {};
  if (Array.isArray(container)) {
    const index = arrayIndex(key, container.length, path);
    const copy = [...container];
    copy[index] = updateAt(container[index], path, depth + 1, update);
    return copy;
  }
  if (typeof container !== 'object') {
    throw new Error(`path [${path.join(', ')}] runs through ${describe(container)} at "${key}"`);
  }
  const current = Object.hasOwn(container, key) ? (container as JSONObject)[key] : undefined;
  // A computed key in a literal defines an own property, so "__proto__" stays plain data.
  return { ...container, [key]: updateAt(current, path, depth + 1, update) };
}

function arrayIndex(key: string, length: number, path: readonly string[]): number {
  const index = /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : NaN;
  if (!(index <= length)) {
    throw new Error(`path [${path.join(', ')}]: "${key}" is not an index within 0..${length}`);
  }
  return index;
}

function describe(value: JSONValue | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}
