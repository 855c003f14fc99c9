import { z } from 'zod';

/** Longest workspace path a tool accepts. */
export const MAX_PATH_LENGTH = 200;
/** Largest file content a tool writes, in bytes of UTF-8 (a session's workspace lives in its log). */
export const MAX_CONTENT_BYTES = 64 * 1024;

/** A workspace path: relative, `/`-separated, no `..` segment, at most {@link MAX_PATH_LENGTH}. */
export const WorkspacePath = z
  .string()
  .min(1, 'path is empty')
  .max(MAX_PATH_LENGTH, `path is longer than ${MAX_PATH_LENGTH} characters`)
  .refine((p) => !p.startsWith('/') && !p.startsWith('\\') && !/^[A-Za-z]:/.test(p), 'path must be relative')
  .refine((p) => !p.split(/[/\\]/).includes('..'), 'path must not contain ".."')
  .refine((p) => !p.includes('\0'), 'path must not contain NUL')
  .refine((p) => normalizePath(p) !== '', 'path names no file')
  .describe('a relative path inside the session workspace, e.g. notes.txt or data/numbers.csv');

/** File content of at most {@link MAX_CONTENT_BYTES} bytes. */
export const FileContent = z
  .string()
  .refine((c) => byteLength(c) <= MAX_CONTENT_BYTES, `content is larger than ${MAX_CONTENT_BYTES} bytes`)
  .describe('the full new content of the file');

/** Size of a string in UTF-8 bytes, without Buffer so it runs anywhere. */
export function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The canonical spelling of a valid path, so `./a.txt` and `a.txt` are one file. */
export function normalizePath(p: string): string {
  return p
    .split(/[/\\]/)
    .filter((seg) => seg !== '' && seg !== '.')
    .join('/');
}
