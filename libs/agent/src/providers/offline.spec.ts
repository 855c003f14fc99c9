import { OfflineProvider, SLOW_MIN_DELAY_MS, chunkWords } from './offline';
import { ECHO_MAX, LONG_ANSWER_MAX_WORDS } from './offline-script';
import { DEFAULT_WRITE_CONTENT } from './offline-intents';
import { ProviderError, type ModelMessage, type ModelStreamPart } from './types';

const provider = new OfflineProvider({ delayMs: 0 });
const signal = () => new AbortController().signal;

async function run(messages: ModelMessage[] | string, p = provider, s = signal()): Promise<ModelStreamPart[]> {
  const msgs: ModelMessage[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
  const parts: ModelStreamPart[] = [];
  for await (const part of p.stream({ messages: msgs, tools: [], signal: s })) parts.push(part);
  return parts;
}

const textOf = (parts: ModelStreamPart[], type: 'text-delta' | 'reasoning-delta' = 'text-delta') =>
  parts.flatMap((p) => (p.type === type ? [p.text] : [])).join('');
const callsOf = (parts: ModelStreamPart[]) => parts.flatMap((p) => (p.type === 'tool-call' ? [{ name: p.name, input: p.input }] : []));
const finishOf = (parts: ModelStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'finish') throw new Error('stream did not end with finish');
  return last;
};

/** The conversation after one tool round: user prompt, the assistant's calls, the results. */
function afterTools(prompt: string, calls: { name: string; input: unknown; result: string }[]): ModelMessage[] {
  return [
    { role: 'user', content: prompt },
    { role: 'assistant', content: 'ok', toolCalls: calls.map((c, i) => ({ toolCallId: `c${i}`, name: c.name, input: c.input })) },
    ...calls.map((c, i): ModelMessage => ({ role: 'tool', toolCallId: `c${i}`, name: c.name, content: c.result })),
  ];
}

describe('OfflineProvider scripted behaviour', () => {
  it('read <path> → says so, calls read_file, finishes with tool_calls', async () => {
    const parts = await run('Please READ the file notes.txt.');
    expect(textOf(parts)).toBe("I'll read notes.txt.\n\n");
    expect(callsOf(parts)).toEqual([{ name: 'read_file', input: { path: 'notes.txt' } }]);
    expect(finishOf(parts).finishReason).toBe('tool_calls');
  });

  it('write "<content>" to <path>, and write <path> with default content', async () => {
    expect(callsOf(await run('write "hi and read x.txt" to out/a.txt'))).toEqual([
      { name: 'write_file', input: { path: 'out/a.txt', content: 'hi and read x.txt' } },
    ]);
    const bare = await run('write b.md');
    expect(callsOf(bare)).toEqual([{ name: 'write_file', input: { path: 'b.md', content: DEFAULT_WRITE_CONTENT } }]);
    expect(textOf(bare)).toBe(`I'll write ${DEFAULT_WRITE_CONTENT.length} bytes to b.md.\n\n`);
  });

  it('delete, list files and calculate / what is', async () => {
    expect(callsOf(await run('delete notes.txt'))).toEqual([{ name: 'delete_file', input: { path: 'notes.txt' } }]);
    expect(callsOf(await run('List files'))).toEqual([{ name: 'list_files', input: {} }]);
    expect(callsOf(await run('calculate (2 + 3) * 4'))).toEqual([{ name: 'calculator', input: { expression: '(2 + 3) * 4' } }]);
    expect(callsOf(await run('What is 1.5*2?'))).toEqual([{ name: 'calculator', input: { expression: '1.5*2' } }]);
  });

  it('joins several requests with "and" into several calls of one step, in prompt order', async () => {
    const parts = await run('read notes.txt and calculate 2+3 and list files');
    expect(callsOf(parts).map((c) => c.name)).toEqual(['read_file', 'calculator', 'list_files']);
    expect(callsOf(parts)[1]).toEqual({ name: 'calculator', input: { expression: '2+3' } });
    const ids = parts.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : []));
    expect(new Set(ids).size).toBe(3);
  });

  it('does not take ordinary words for paths or expressions', async () => {
    const parts = await run('read me a story about what is the weather');
    expect(callsOf(parts)).toEqual([]);
    expect(finishOf(parts).finishReason).toBe('stop');
  });

  it('"think" emits reasoning before the text', async () => {
    const parts = await run('think, then read notes.txt');
    expect(textOf(parts, 'reasoning-delta')).toBe('Thinking about: think, then read notes.txt');
    const firstText = parts.findIndex((p) => p.type === 'text-delta');
    const lastReasoning = parts.map((p) => p.type).lastIndexOf('reasoning-delta');
    expect(lastReasoning).toBeLessThan(firstText);
  });

  it('long answer <N> streams N words, one chunk each, capped', async () => {
    const parts = await run('long answer 25');
    expect(textOf(parts)).toBe(Array.from({ length: 25 }, (_, i) => `word${i + 1}`).join(' '));
    expect(parts.filter((p) => p.type === 'text-delta')).toHaveLength(25);
    const capped = await run('long answer 999999');
    expect(textOf(capped).split(' ')).toHaveLength(LONG_ANSWER_MAX_WORDS);
  });

  it.each([
    ['auth', 'PROVIDER_AUTH', false],
    ['rate_limit', 'PROVIDER_RATE_LIMIT', true],
    ['down', 'PROVIDER_DOWN', true],
    ['internal', 'INTERNAL', false],
  ])('fail with %s throws %s (retryable %s) before any part', async (word, code, retryable) => {
    const parts: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const p of provider.stream({ messages: [{ role: 'user', content: `read a.txt and fail with ${word}` }], tools: [], signal: signal() })) {
        parts.push(p);
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect([(error as ProviderError).code, (error as ProviderError).retryable]).toEqual([code, retryable]);
    expect(parts).toEqual([]);
  });

  it('otherwise echoes the prompt, bounded by ECHO_MAX', async () => {
    const parts = await run('hello there');
    expect(textOf(parts)).toMatch(/^You said: "hello there"\. /);
    expect(finishOf(parts).finishReason).toBe('stop');
    const huge = textOf(await run('x'.repeat(ECHO_MAX * 3)));
    expect(huge.length).toBeLessThan(ECHO_MAX + 300);
  });
});

describe('OfflineProvider after tool results', () => {
  it('answers from a read_file result, with no new calls', async () => {
    const parts = await run(afterTools('read notes.txt', [{ name: 'read_file', input: { path: 'notes.txt' }, result: 'Buy milk.' }]));
    expect(textOf(parts)).toBe('The file notes.txt says: Buy milk.');
    expect(callsOf(parts)).toEqual([]);
    expect(finishOf(parts).finishReason).toBe('stop');
  });

  it('reports denials, writes and calculations, one line per result', async () => {
    const parts = await run(
      afterTools('write "x" to a.txt and delete b.txt and calculate 2*3', [
        { name: 'write_file', input: { path: 'a.txt', content: 'x' }, result: 'wrote 1 bytes to a.txt' },
        { name: 'delete_file', input: { path: 'b.txt' }, result: 'DENIED: the user said no' },
        { name: 'calculator', input: { expression: '2*3' }, result: '6' },
      ]),
    );
    expect(textOf(parts)).toBe(['Done: wrote 1 bytes to a.txt.', 'The delete_file call was denied, so I did not delete b.txt.', 'The result is 6.'].join('\n'));
  });

  it('reports a failed tool call and a missing file', async () => {
    const parts = await run(
      afterTools('calculate 1/0 and read x.txt', [
        { name: 'calculator', input: { expression: '1/0' }, result: 'ERROR: division by zero' },
        { name: 'read_file', input: { path: 'x.txt' }, result: 'no such file: x.txt (files: a.txt)' },
      ]),
    );
    expect(textOf(parts)).toBe('The calculator call failed: division by zero\nI could not read x.txt: no such file: x.txt (files: a.txt)');
  });

  it('a new user message after the results starts a new scripted step', async () => {
    const messages = afterTools('read notes.txt', [{ name: 'read_file', input: { path: 'notes.txt' }, result: 'x' }]);
    const parts = await run([...messages, { role: 'assistant', content: 'The file notes.txt says: x' }, { role: 'user', content: 'list files' }]);
    expect(callsOf(parts)).toEqual([{ name: 'list_files', input: {} }]);
  });
});

describe('OfflineProvider streaming contract', () => {
  it('is deterministic: the same request gives the same parts, ids included', async () => {
    const prompt = 'think and read notes.txt and write "a" to b.txt';
    expect(await run(prompt)).toEqual(await run(prompt));
    const other = await run([
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'x' },
      { role: 'user', content: prompt },
    ]);
    expect(other.find((p) => p.type === 'tool-call')).not.toEqual((await run(prompt)).find((p) => p.type === 'tool-call'));
  });

  it('reports usage as ceil(chars / 4), at least 1', async () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'abcd' },
      { role: 'user', content: 'hello there' },
    ];
    const parts = await run(messages);
    const outputChars = textOf(parts).length;
    expect(finishOf(parts).usage).toEqual({
      promptTokens: Math.ceil(15 / 4),
      completionTokens: Math.ceil(outputChars / 4),
      totalTokens: Math.ceil(15 / 4) + Math.ceil(outputChars / 4),
    });
    expect(finishOf(await run('')).usage.promptTokens).toBe(1);
  });

  it('stops promptly when aborted mid-stream', async () => {
    const slowish = new OfflineProvider({ delayMs: 20 });
    const controller = new AbortController();
    const parts: ModelStreamPart[] = [];
    const started = performance.now();
    const consume = (async () => {
      for await (const p of slowish.stream({ messages: [{ role: 'user', content: 'long answer 1000' }], tools: [], signal: controller.signal })) {
        parts.push(p);
        if (parts.length === 3) setTimeout(() => controller.abort(), 5);
      }
    })();
    await expect(consume).rejects.toMatchObject({ name: 'AbortError' });
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.length).toBeLessThan(6);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses to start on an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(run('hello', provider, controller.signal)).rejects.toThrow('gone');
  });

  it('waits delayMs between chunks, and at least SLOW_MIN_DELAY_MS per chunk when "slow"', async () => {
    const timed = async (p: OfflineProvider, prompt: string) => {
      const t0 = performance.now();
      await run(prompt, p);
      return performance.now() - t0;
    };
    // "long answer 4" is 4 chunks: 3 pauses between them.
    expect(await timed(new OfflineProvider({ delayMs: 30 }), 'long answer 4')).toBeGreaterThanOrEqual(85);
    expect(await timed(new OfflineProvider({ delayMs: 0 }), 'slow long answer 3')).toBeGreaterThanOrEqual(2 * SLOW_MIN_DELAY_MS - 5);
  });

  it('keeps the model clock when the reader is late: chunks already due come at once', async () => {
    // A reader whose event loop is blocked 100 ms at each chunk of a 50 ms model: paced by a pause
    // per chunk, the 10th chunk would come after 9 × (100 + 50) = 1,350 ms; by the model's clock
    // the overdue ones wait for nothing, so it comes after the reader's own 9 × 100 ms.
    const p = new OfflineProvider({ delayMs: 50 });
    const arrivals: number[] = [];
    const t0 = performance.now();
    for await (const part of p.stream({ messages: [{ role: 'user', content: 'long answer 10' }], tools: [], signal: new AbortController().signal })) {
      if (part.type !== 'text-delta') continue;
      arrivals.push(performance.now() - t0);
      const until = performance.now() + 100;
      while (performance.now() < until) {
        // busy: the event loop is held, as a crowded worker's is
      }
    }
    expect(arrivals).toHaveLength(10);
    // chunk i is never early...
    arrivals.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(i * 50 - 2));
    // ...and the late reader is not slowed further (900 ms of its own, 1,350 paced per chunk).
    expect(arrivals[9]).toBeLessThan(1150);
  });

  it('chunks text into words that join back exactly', () => {
    const text = '  a  b\nc ';
    expect(chunkWords(text).join('')).toBe(text);
    expect(chunkWords('')).toEqual([]);
  });
});
