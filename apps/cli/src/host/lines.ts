/** One item of input: a line's text, or why it is not one (too large, not UTF-8). */
export type InputLine = { text: string } | { invalid: string };

const NEWLINE = 0x0a;

/**
 * NDJSON lines of a byte stream. Blank lines are skipped (as upstream does); a line over
 * `maxBytes` is reported as soon as the limit is passed, without buffering the rest of it;
 * invalid UTF-8 is reported, never replaced. A stream that errors (a closed descriptor) ends.
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  const take = (): InputLine | null => {
    const line = Buffer.concat(parts);
    parts = [];
    size = 0;
    const trimmed = line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
    if (trimmed.every((b) => b === 0x20 || b === 0x09)) return null;
    try {
      return { text: decoder.decode(trimmed) };
    } catch {
      return { invalid: 'input is not valid UTF-8' };
    }
  };
  try {
    for await (const chunk of input) {
      let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let nl = buf.indexOf(NEWLINE); ; nl = buf.indexOf(NEWLINE)) {
        const piece = nl === -1 ? buf : buf.subarray(0, nl);
        if (!discarding) {
          parts.push(piece);
          size += piece.length;
          if (size > maxBytes) {
            discarding = true;
            parts = [];
            yield { invalid: `payload exceeds the input size limit of ${maxBytes} bytes` };
          }
        }
        if (nl === -1) break;
        buf = buf.subarray(nl + 1);
        if (discarding) discarding = false;
        else {
          const line = take();
          if (line) yield line;
        }
        parts = [];
        size = 0;
      }
    }
  } catch (e) {
    process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'stdin ended with an error', error: (e as Error).message })}\n`);
  }
  if (!discarding && size > 0) {
    const line = take();
    if (line) yield line;
  }
}

/** Writes one JSON line to stdout and resolves once it is handed to the OS (before an exit). */
export function writeLine(value: unknown): Promise<void> {
  return new Promise((resolve) => {
    const ok = process.stdout.write(`${JSON.stringify(value)}\n`, () => resolve());
    if (!ok) process.stdout.once('drain', () => resolve());
  });
}
