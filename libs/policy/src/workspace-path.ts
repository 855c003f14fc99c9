/**
 * A path argument as a path inside the session's workspace (`/`-separated, `.` and `..` resolved,
 * no leading `./`), or null when it points outside: absolute (`/etc`, `\\server`, `C:`), from the
 * home directory (`~`), or climbing above the workspace root with `..`. The workspace root itself is
 * `''`. Nothing is looked up on a disk: the answer depends on the string alone, so explain and the
 * worker always agree.
 */
export function workspacePath(value: string): string | null {
  if (/^([/\\~]|[A-Za-z]:)/.test(value)) return null;
  const parts: string[] = [];
  for (const segment of value.split(/[/\\]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}
