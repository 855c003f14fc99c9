import { ToolInputError, type Tool, type ToolContext } from '../types';
import { MAX_CONTENT_BYTES } from '../paths';
import { seedWorkspace } from '../workspace';
import { BUILTIN_TOOLS, calculatorTool, createBuiltinRegistry, deleteFileTool, listFilesTool, readFileTool, writeFileTool } from './index';
import { evaluateArithmetic } from './arithmetic';

const ctx = (files: Map<string, string> = seedWorkspace(), signal = new AbortController().signal): ToolContext => ({
  tenantId: 't1',
  sessionId: 's1',
  signal,
  files,
});

async function inputError(tool: Tool, input: unknown): Promise<ToolInputError> {
  const error = await tool.execute(input, ctx()).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ToolInputError)) throw new Error(`expected ToolInputError for ${JSON.stringify(input)}`);
  return error;
}

describe('file tools', () => {
  it('read_file returns the content, normalising ./ prefixes', async () => {
    expect(await readFileTool.execute({ path: 'notes.txt' }, ctx())).toBe('Remember to water the plants.\nBuy milk.\n');
    expect(await readFileTool.execute({ path: './data/numbers.csv' }, ctx())).toContain('alpha,3');
  });

  it('read_file tells the model about a missing file instead of throwing', async () => {
    expect(await readFileTool.execute({ path: 'nope.txt' }, ctx())).toBe('no such file: nope.txt (files: README.md, data/numbers.csv, notes.txt)');
  });

  it('list_files lists every path with its size', async () => {
    const out = await listFilesTool.execute(
      {},
      ctx(
        new Map([
          ['b.txt', 'hé'],
          ['a.txt', ''],
        ]),
      ),
    );
    expect(out).toBe('a.txt (0 bytes)\nb.txt (3 bytes)');
    expect(await listFilesTool.execute({}, ctx(new Map()))).toBe('the workspace is empty');
  });

  it('write_file reports the UTF-8 size and does not touch ctx.files', async () => {
    const files = seedWorkspace();
    expect(await writeFileTool.execute({ path: 'out/x.txt', content: 'héllo' }, ctx(files))).toBe('wrote 6 bytes to out/x.txt');
    expect(files.has('out/x.txt')).toBe(false);
  });

  it('delete_file reports what it deletes', async () => {
    expect(await deleteFileTool.execute({ path: 'notes.txt' }, ctx())).toBe('deleted notes.txt');
    expect(await deleteFileTool.execute({ path: 'gone.txt' }, ctx())).toMatch(/^no such file: gone.txt/);
  });

  it.each([
    ['a parent segment', { path: '../etc/passwd' }],
    ['a nested parent segment', { path: 'data/../../x' }],
    ['an absolute path', { path: '/etc/passwd' }],
    ['a drive path', { path: 'C:\\x.txt' }],
    ['an empty path', { path: '' }],
    ['a path naming no file', { path: './' }],
    ['a path over 200 characters', { path: 'a'.repeat(201) }],
    ['a missing path', {}],
    ['a non-string path', { path: 42 }],
  ])('refuses %s', async (_what, input) => {
    for (const tool of [readFileTool, deleteFileTool]) await inputError(tool, input);
    await inputError(writeFileTool, { content: 'x', ...input });
  });

  it('accepts a 200-character path and 64 KiB of content, refuses one byte more', async () => {
    const path = 'a'.repeat(200);
    const limit = 'x'.repeat(MAX_CONTENT_BYTES);
    expect(await writeFileTool.execute({ path, content: limit }, ctx())).toBe(`wrote ${MAX_CONTENT_BYTES} bytes to ${path}`);
    const error = await inputError(writeFileTool, { path: 'a.txt', content: `${limit}x` });
    expect(error.message).toMatch(/content is larger than 65536 bytes/);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(readFileTool.execute({ path: 'notes.txt' }, ctx(seedWorkspace(), controller.signal))).rejects.toThrow('cancelled');
  });
});

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['-3 + 5', 2],
    ['-(2 + 3) * -2', 10],
    ['1.5 * 4', 6],
    ['.5 + .25', 0.75],
    ['0.1 + 0.2', 0.3],
    [' 2*(3+(4-1))/3 ', 4],
  ])('%s = %d', (expression, value) => {
    expect(evaluateArithmetic(expression)).toBe(value);
  });

  it('answers as text', async () => {
    expect(await calculatorTool.execute({ expression: '(2 + 3) * 4.5' }, ctx())).toBe('22.5');
  });

  it.each([
    'process.exit()',
    'require("fs")',
    '2 +',
    '(1 + 2',
    '1 + 2)',
    '2 ** 3',
    '1 / 0',
    '1e5',
    '1..2',
    '('.repeat(100) + '1' + ')'.repeat(100),
    '',
    '1'.repeat(201),
  ])('refuses %j without running anything', async (expression) => {
    const error = await inputError(calculatorTool, { expression });
    expect(error.toolName).toBe('calculator');
  });
});

describe('built-in registry', () => {
  it('offers the five tools with object JSON schemas derived from their zod inputs', () => {
    const registry = createBuiltinRegistry();
    expect(registry.specs().map((s) => s.name)).toEqual(['read_file', 'list_files', 'calculator', 'write_file', 'delete_file']);
    const write = registry.get('write_file');
    expect(write?.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', maxLength: 200 }, content: { type: 'string' } },
      required: ['path', 'content'],
    });
    expect(write?.inputSchema).not.toHaveProperty('$schema');
    expect(registry.specs()[0]).toEqual({ name: 'read_file', description: readFileTool.description, inputSchema: readFileTool.inputSchema });
  });

  it('carries each tool policy and risk tier', () => {
    expect(BUILTIN_TOOLS.map((t) => [t.name, t.policy, t.riskTier, t.executor])).toEqual([
      ['read_file', 'allow', 'low', 'builtin'],
      ['list_files', 'allow', 'low', 'builtin'],
      ['calculator', 'allow', 'low', 'builtin'],
      ['write_file', 'ask', 'medium', 'builtin'],
      ['delete_file', 'ask', 'high', 'builtin'],
    ]);
  });

  it('refuses two tools of one name', () => {
    expect(() => createBuiltinRegistry([readFileTool])).toThrow('duplicate tool name: read_file');
  });
});
