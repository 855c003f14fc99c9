// The one check every edge runs on a client's JSON before anything else touches it: HTTP bodies
// and query strings, WebSocket frames and stdio lines, on every protocol. It is iterative (an
// explicit stack), so nesting that would overflow the recursive code behind it (zod, JSON
// encoders, Postgres jsonb) is refused here without recursing itself.

/** What an edge accepts from a client, per JSON value. */
export interface InputLimits {
  /** Containers (objects and arrays) nested deeper than this are refused; the top level is 1. */
  maxDepth: number;
  /** A string (value or key) longer than this many UTF-8 bytes is refused. */
  maxStringBytes: number;
}

/**
 * The hub's limits. 64 levels is far beyond any protocol's real messages (the deepest fixture is
 * under 10); 200 KiB per string stays under the event store's 256 KiB per event, so a text that
 * passes here fits one `TurnRequested` instead of failing later as a server error.
 */
export const INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({ maxDepth: 64, maxStringBytes: 200 * 1024 });

export type InputProblemKind = 'too_deep' | 'string_too_large' | 'nul' | 'lone_surrogate';

/** Why a value was refused, and where: `path` is JSONPath-like (`$.params.prompt[0].text`). */
export interface InputProblem {
  kind: InputProblemKind;
  path: string;
  message: string;
}

export type ParsedInput = { ok: true; value: unknown } | { ok: false; kind: 'syntax' | InputProblemKind; path: string; message: string };

// Postgres cannot store U+0000 in text or jsonb, and an unpaired surrogate is not Unicode: both
// failed deep in the stack (as 500s) before this check existed.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_PATH_SEGMENTS = 12;

interface Frame {
  value: unknown;
  path: string[];
  depth: number;
}

/** The first thing in `value` that breaks `limits`, or null when it is acceptable. Never throws. */
export function checkInput(value: unknown, limits: InputLimits = INPUT_LIMITS): InputProblem | null {
  const stack: Frame[] = [{ value, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop() as Frame;
    if (typeof v === 'string') {
      const p = textProblem(v, path, limits);
      if (p) return p;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limits.maxDepth) {
      return problem('too_deep', path, `nested deeper than ${limits.maxDepth} levels`);
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Pushed in reverse so the first offending field in document order is the one reported.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      const childPath = [...path, segment(key)];
      if (typeof key === 'string') {
        const p = textProblem(key, childPath, limits, 'key');
        if (p) return p;
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

/** `JSON.parse` followed by {@link checkInput}: the one way an edge should read client text. */
export function parseJsonInput(raw: string, limits: InputLimits = INPUT_LIMITS): ParsedInput {
  let value: unknown;
  try {
    // JSON.parse itself is iterative in V8: any nesting parses; only later recursion overflows.
    value = JSON.parse(raw);
  } catch (e) {
    return { ok: false, kind: 'syntax', path: '$', message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const p = checkInput(value, limits);
  return p ? { ok: false, ...p } : { ok: true, value };
}

/** Text checks alone, for a value that is not JSON (a path parameter): reported as `$.<name>`. */
export function checkText(text: string, name: string, limits: InputLimits = INPUT_LIMITS): InputProblem | null {
  return textProblem(text, [segment(name)], limits);
}

/** UTF-8 length of a JS string, without Node's Buffer (this lib is pure). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function textProblem(s: string, path: string[], limits: InputLimits, what: 'key' | 'text' = 'text'): InputProblem | null {
  // Only measure when the length could be over: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (s.length * 3 > limits.maxStringBytes) {
    const bytes = utf8Bytes(s);
    if (bytes > limits.maxStringBytes) {
      return problem('string_too_large', path, `${what} of ${bytes} bytes is over the limit of ${limits.maxStringBytes} bytes`);
    }
  }
  const nul = s.indexOf('\u0000');
  if (nul >= 0) return problem('nul', path, `${what} contains U+0000 (NUL) at index ${nul}`);
  const lone = LONE_SURROGATE.exec(s);
  if (lone) {
    const unit = s.charCodeAt(lone.index).toString(16).toUpperCase();
    return problem('lone_surrogate', path, `${what} contains an unpaired surrogate U+${unit} at index ${lone.index}`);
  }
  return null;
}

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}]`;
}

function problem(kind: InputProblemKind, path: string[], what: string): InputProblem {
  const shown = path.length > MAX_PATH_SEGMENTS ? [...path.slice(0, MAX_PATH_SEGMENTS), '…'] : path;
  const where = `$${shown.join('')}`;
  return { kind, path: where, message: `${where}: ${what}` };
}
