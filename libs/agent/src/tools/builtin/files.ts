import { z } from 'zod';
import { defineTool } from '../define';
import { FileContent, WorkspacePath, byteLength, normalizePath } from '../paths';

// The file tools work on the session's virtual workspace (`ctx.files`). Writes and deletes
// only report what they do: the change takes effect once the call's completion is in the log.

const ReadFileInput = z.object({ path: WorkspacePath });

function listing(files: ReadonlyMap<string, string>): string {
  return [...files.keys()].sort().join(', ');
}

/** `read_file {path}`: the file's content, or a "no such file" note the model can act on. */
export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file from the session workspace.',
  input: ReadFileInput,
  policy: 'allow',
  riskTier: 'low',
  run({ path }, ctx) {
    const key = normalizePath(path);
    const content = ctx.files.get(key);
    return content ?? `no such file: ${key} (files: ${listing(ctx.files) || 'none'})`;
  },
});

/** `list_files {}`: every path in the workspace, one per line with its size. */
export const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List the files in the session workspace.',
  input: z.object({}),
  policy: 'allow',
  riskTier: 'low',
  run(_input, ctx) {
    const paths = [...ctx.files.keys()].sort();
    if (paths.length === 0) return 'the workspace is empty';
    return paths.map((p) => `${p} (${byteLength(ctx.files.get(p) ?? '')} bytes)`).join('\n');
  },
});

/** `write_file {path, content}`: creates or replaces a file. Needs approval by default. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create or overwrite a text file in the session workspace.',
  input: z.object({ path: WorkspacePath, content: FileContent }),
  policy: 'ask',
  riskTier: 'medium',
  run({ path, content }) {
    return `wrote ${byteLength(content)} bytes to ${normalizePath(path)}`;
  },
});

/** `delete_file {path}`: removes a file. High risk, needs approval by default. */
export const deleteFileTool = defineTool({
  name: 'delete_file',
  description: 'Delete a file from the session workspace.',
  input: z.object({ path: WorkspacePath }),
  policy: 'ask',
  riskTier: 'high',
  run({ path }, ctx) {
    const key = normalizePath(path);
    if (!ctx.files.has(key)) return `no such file: ${key} (files: ${listing(ctx.files) || 'none'})`;
    return `deleted ${key}`;
  },
});
