import { byteLength } from '../tools/paths';

/** A tool call the offline provider read out of the prompt, with what it says before making it. */
export interface OfflineIntent {
  index: number;
  say: string;
  name: string;
  input: Record<string, unknown>;
}

/** Content `write <path>` writes when the prompt gives none. */
export const DEFAULT_WRITE_CONTENT = 'hello from the offline provider\n';

const PATH = String.raw`([\w./-]+)`;
const WRITE_QUOTED = new RegExp(String.raw`\bwrite\s+"([^"]*)"\s+(?:to|into)\s+(?:the file\s+)?${PATH}`, 'gi');
const WRITE_BARE = new RegExp(String.raw`\bwrite\s+(?:to\s+)?(?:the file\s+)?${PATH}`, 'gi');
const READ = new RegExp(String.raw`\bread\s+(?:the file\s+)?${PATH}`, 'gi');
const DELETE = new RegExp(String.raw`\bdelete\s+(?:the file\s+)?${PATH}`, 'gi');
const LIST = /\blist\s+(?:the\s+|all\s+)?files\b/gi;
const USE = /\buse\s+([A-Za-z_][\w.-]*)\s+with\s+(?=\{)/gi;
const CALC = /\b(?:calculate|compute|what is|what's)\s+([-+(\d.][\d\s+\-*/().]*)/gi;

/**
 * Finds the tool calls a prompt asks for, in the order they appear (so "read a.txt and list
 * files" gives two calls). Quoted write content is masked first, so a file body that mentions
 * "read x.txt" does not become a call of its own.
 */
export function parseIntents(prompt: string): OfflineIntent[] {
  const intents: OfflineIntent[] = [];
  let text = prompt;
  // First, and masked: a `use` call's JSON may hold quotes and words the rules below would read.
  for (const m of prompt.matchAll(USE)) {
    const use = useIntent(prompt, m);
    if (!use) continue;
    intents.push(use.intent);
    text = mask(text, m.index, use.length);
  }
  for (const m of text.matchAll(WRITE_QUOTED)) {
    const path = cleanPath(m[2]);
    if (path) intents.push(writeIntent(m.index, path, m[1] ?? ''));
    text = mask(text, m.index, m[0].length);
  }
  text = text.replace(/"[^"]*"/g, (q) => ' '.repeat(q.length));
  for (const m of text.matchAll(WRITE_BARE)) {
    const path = cleanPath(m[1]);
    if (path) intents.push(writeIntent(m.index, path, DEFAULT_WRITE_CONTENT));
  }
  for (const m of text.matchAll(READ)) {
    const path = cleanPath(m[1]);
    if (path) intents.push({ index: m.index, say: `I'll read ${path}.`, name: 'read_file', input: { path } });
  }
  for (const m of text.matchAll(DELETE)) {
    const path = cleanPath(m[1]);
    if (path) intents.push({ index: m.index, say: `I'll delete ${path}.`, name: 'delete_file', input: { path } });
  }
  for (const m of text.matchAll(LIST)) {
    intents.push({ index: m.index, say: `I'll list the files.`, name: 'list_files', input: {} });
  }
  for (const m of text.matchAll(CALC)) {
    const expression = (m[1] ?? '').replace(/[\s.]+$/, '').trim();
    if (/\d/.test(expression)) {
      intents.push({ index: m.index, say: `I'll calculate ${expression}.`, name: 'calculator', input: { expression } });
    }
  }
  return intents.sort((a, b) => a.index - b.index);
}

/**
 * `use <tool> with <json object>`: a call of any tool by name (for injected MCP tools). Null
 * when the braces do not close or the JSON does not parse to an object.
 */
function useIntent(prompt: string, m: RegExpExecArray | RegExpMatchArray): { intent: OfflineIntent; length: number } | null {
  const name = m[1] ?? '';
  const index = m.index ?? 0;
  const start = index + m[0].length;
  const json = balancedObject(prompt, start);
  if (!json) return null;
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch {
    return null; // Not JSON after all: the prompt stays a chat message.
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  return { intent: { index, say: `I'll use ${name}.`, name, input: input as Record<string, unknown> }, length: m[0].length + json.length };
}

/** The `{...}` starting at `start`, braces balanced outside JSON strings; '' when unclosed. */
function balancedObject(s: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return s.slice(start, i + 1);
  }
  return '';
}

function writeIntent(index: number, path: string, content: string): OfflineIntent {
  return { index, say: `I'll write ${byteLength(content)} bytes to ${path}.`, name: 'write_file', input: { path, content } };
}

// A word is taken for a path only if it looks like one (has a "." or "/"), so "read me a
// story" stays a chat message. A sentence's final "." is not part of the path.
function cleanPath(raw: string | undefined): string | undefined {
  const path = (raw ?? '').replace(/\.+$/, '');
  return /[./]/.test(path) ? path : undefined;
}

function mask(text: string, index: number, length: number): string {
  return text.slice(0, index) + ' '.repeat(length) + text.slice(index + length);
}
