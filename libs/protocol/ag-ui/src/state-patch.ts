import { applyOps, type DeltaOperation, type HarnessState, type JSONValue } from '@hub/domain';
import type { Operation } from 'fast-json-patch';
import { escapePathComponent } from 'fast-json-patch';

/**
 * The RFC 6902 patch that takes a client's copy of the HarnessState where the transport's delta
 * ops take it, op for op: `set` is `add` for a new key or the next array index, `replace`
 * otherwise (`replace` at `""` for the root); `append-text` is a `replace` of the whole string
 * (JSON Patch has no append), so consecutive appends to one string become one `replace`.
 * Returns the state after the ops as well.
 */
export function patchOf(state: HarnessState, ops: readonly DeltaOperation[]): { state: HarnessState; patch: Operation[] } {
  const patch: Operation[] = [];
  let current = state;
  for (const op of ops) {
    const next = applyOps(current, [op]);
    const path = pointer(op.path);
    if (op.type === 'append-text') {
      const value = valueAt(next, op.path) as string;
      const last = patch[patch.length - 1];
      if (last && (last.op === 'replace' || last.op === 'add') && last.path === path) last.value = value;
      else patch.push({ op: 'replace', path, value });
    } else {
      patch.push(setOp(current, op.path, op.value));
    }
    current = next;
  }
  return { state: current, patch };
}

function setOp(state: HarnessState, path: readonly string[], value: JSONValue): Operation {
  if (path.length === 0) return { op: 'replace', path: '', value };
  // `set` creates missing objects on its way: the first missing key is added with the rest nested.
  let node: JSONValue | undefined = state;
  for (let depth = 0; depth < path.length; depth++) {
    const key = path[depth] as string;
    const exists = node !== null && typeof node === 'object' && Object.hasOwn(node, key) && !(Array.isArray(node) && Number(key) >= node.length);
    if (!exists) return { op: 'add', path: pointer(path.slice(0, depth + 1)), value: nest(path.slice(depth + 1), value) };
    node = (node as Record<string, JSONValue>)[key];
  }
  return { op: 'replace', path: pointer(path), value };
}

function nest(rest: readonly string[], value: JSONValue): JSONValue {
  return rest.reduceRight<JSONValue>((inner, key) => ({ [key]: inner }), value);
}

function valueAt(root: JSONValue, path: readonly string[]): JSONValue | undefined {
  let node: JSONValue | undefined = root;
  for (const key of path) node = node !== null && typeof node === 'object' ? (node as Record<string, JSONValue>)[key] : undefined;
  return node;
}

/** A JSON Pointer (RFC 6901) of a delta op's path. */
export function pointer(path: readonly string[]): string {
  return path.map((k) => `/${escapePathComponent(k)}`).join('');
}
