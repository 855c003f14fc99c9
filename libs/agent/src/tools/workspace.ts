import type { HubEvent } from '@hub/domain';
import { normalizePath } from './paths';

/**
 * The demo files every session's workspace starts with. Small on purpose: they are shown to
 * models and echoed by the offline provider.
 */
export const SEED_FILES: Readonly<Record<string, string>> = Object.freeze({
  'README.md': '# Demo workspace\nThis is the session workspace of Harness Hub.\nFiles written by tools live in the log.\n',
  'notes.txt': 'Remember to water the plants.\nBuy milk.\n',
  'data/numbers.csv': 'name,value\nalpha,3\nbeta,5\ngamma,8\n',
});

/** A fresh copy of {@link SEED_FILES}. */
export function seedWorkspace(): Map<string, string> {
  return new Map(Object.entries(SEED_FILES));
}

type FileChange = { kind: 'write'; path: string; content: string } | { kind: 'delete'; path: string };

/**
 * The session's virtual workspace, folded from its events: the seed files plus, in log order,
 * every `write_file` / `delete_file` call that completed with status `complete`. Workers scale
 * out, so no tool may depend on one worker's disk; the log is the disk. Pure.
 */
export function workspaceFromEvents(events: readonly HubEvent[]): Map<string, string> {
  const files = seedWorkspace();
  // Keyed by turn and call id: a model may reuse a call id in another turn.
  const pending = new Map<string, FileChange>();
  const names = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'ToolCallStarted') {
      const change = fileChange(event.data.name, event.data.input);
      const key = `${event.data.turnId}\u0000${event.data.toolCallId}`;
      names.set(key, event.data.name);
      if (change) pending.set(key, change);
      else pending.delete(key);
    } else if (event.type === 'ApprovalResolved' && event.data.input !== undefined) {
      // An approver's edit replaces the call's arguments: the call that completes is the edited one.
      const key = `${event.data.turnId}\u0000${event.data.toolCallId}`;
      const change = fileChange(names.get(key) ?? '', event.data.input);
      if (change) pending.set(key, change);
      else pending.delete(key);
    } else if (event.type === 'ToolCallCompleted') {
      const key = `${event.data.turnId}\u0000${event.data.toolCallId}`;
      const change = pending.get(key);
      pending.delete(key);
      if (change && event.data.status === 'complete') apply(files, change);
    }
  }
  return files;
}

function fileChange(name: string, input: unknown): FileChange | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { path, content } = input as { path?: unknown; content?: unknown };
  if (typeof path !== 'string') return undefined;
  if (name === 'write_file' && typeof content === 'string') {
    return { kind: 'write', path: normalizePath(path), content };
  }
  if (name === 'delete_file') return { kind: 'delete', path: normalizePath(path) };
  return undefined;
}

function apply(files: Map<string, string>, change: FileChange): void {
  if (change.kind === 'write') files.set(change.path, change.content);
  else files.delete(change.path);
}
