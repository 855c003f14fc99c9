import { readLines, type InputLine } from './lines';

async function collect(chunks: (string | Buffer)[], max = 32): Promise<InputLine[]> {
  async function* source() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : c;
  }
  const out: InputLine[] = [];
  for await (const line of readLines(source(), max)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('splits NDJSON across chunk boundaries, strips CR, skips blank lines, keeps a last line without newline', async () => {
    expect(await collect(['{"a":', '1}\r\n\n  \n{"b"', ':2}\n{"c":3}'])).toEqual([{ text: '{"a":1}' }, { text: '{"b":2}' }, { text: '{"c":3}' }]);
  });

  it('reports a line over the limit once, as soon as it passes it, and resumes after its newline', async () => {
    const long = 'x'.repeat(40);
    expect(await collect([long.slice(0, 20), long.slice(20), long, '\nok\n'])).toEqual([
      { invalid: 'payload exceeds the input size limit of 32 bytes' },
      { text: 'ok' },
    ]);
  });

  it('reports invalid UTF-8 instead of replacing it; multi-byte characters split across chunks are fine', async () => {
    const zh = Buffer.from('好\n');
    expect(await collect([Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), zh.subarray(0, 1), zh.subarray(1)])).toEqual([
      { invalid: 'input is not valid UTF-8' },
      { text: '好' },
    ]);
  });

  it('an empty or failing input just ends', async () => {
    expect(await collect([])).toEqual([]);
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.from('{"a":1}\n');
      throw new Error('EBADF');
    }
    const out: InputLine[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    for await (const line of readLines(broken(), 32)) out.push(line);
    stderr.mockRestore();
    expect(out).toEqual([{ text: '{"a":1}' }]);
  });
});
