import { INPUT_LIMITS, checkInput, checkText, parseJsonInput, utf8Bytes } from './input-limits';

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe('checkInput', () => {
  it('accepts ordinary protocol messages, unicode included', () => {
    expect(checkInput({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { prompt: [{ type: 'text', text: 'héllo 😀 世界' }] } })).toBeNull();
    expect(checkInput([1, null, true, 'x', { k: [] }])).toBeNull();
    expect(checkInput('plain')).toBeNull();
    expect(checkInput(nest(INPUT_LIMITS.maxDepth))).toBeNull();
  });

  it('refuses nesting over the depth limit, iteratively (10,000 levels does not overflow)', () => {
    expect(checkInput(nest(INPUT_LIMITS.maxDepth + 1))).toEqual(expect.objectContaining({ kind: 'too_deep' }));
    const deep = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    const p = checkInput({ rubric: deep });
    expect(p).toEqual({
      kind: 'too_deep',
      path: expect.stringMatching(/^\$\.rubric(\[0\]){11}…$/),
      message: expect.stringContaining('nested deeper than 64 levels'),
    });
  });

  it('refuses NUL and unpaired surrogates in values and keys, naming the field', () => {
    expect(checkInput({ params: { prompt: [{ text: 'a\u0000b' }] } })).toEqual({
      kind: 'nul',
      path: '$.params.prompt[0].text',
      message: '$.params.prompt[0].text: text contains U+0000 (NUL) at index 1',
    });
    expect(checkInput({ intent: 'x\ud800' })).toEqual(
      expect.objectContaining({ kind: 'lone_surrogate', path: '$.intent', message: expect.stringContaining('U+D800 at index 1') }),
    );
    expect(checkInput({ intent: '\udc00x' })?.kind).toBe('lone_surrogate');
    expect(checkInput({ 'bad\u0000key': 1 })).toEqual(
      expect.objectContaining({ kind: 'nul', path: '$["bad\\u0000key"]', message: expect.stringContaining('key contains') }),
    );
    expect(checkInput({ ok: '😀' })).toBeNull();
  });

  it('refuses a string over the size limit in UTF-8 bytes', () => {
    expect(checkInput({ intent: 'x'.repeat(900 * 1024) })).toEqual(expect.objectContaining({ kind: 'string_too_large', path: '$.intent' }));
    expect(checkInput({ t: 'é'.repeat(60) }, { maxDepth: 5, maxStringBytes: 100 })?.kind).toBe('string_too_large');
    expect(checkInput({ t: 'e'.repeat(100) }, { maxDepth: 5, maxStringBytes: 100 })).toBeNull();
  });

  it('reports the first offending field in document order', () => {
    expect(checkInput({ a: 'ok', b: 'x\u0000', c: '\ud800' })?.path).toBe('$.b');
  });
});

describe('parseJsonInput / checkText / utf8Bytes', () => {
  it('parses, or says why not', () => {
    expect(parseJsonInput('{"a":[1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(parseJsonInput('{')).toEqual(expect.objectContaining({ ok: false, kind: 'syntax', path: '$' }));
    expect(parseJsonInput('{"a":"\\u0000"}')).toEqual(expect.objectContaining({ ok: false, kind: 'nul', path: '$.a' }));
    expect(parseJsonInput('"\\udbff"')).toEqual(expect.objectContaining({ ok: false, kind: 'lone_surrogate', path: '$' }));
  });

  it('checks a bare text parameter', () => {
    expect(checkText('ep\u0000', 'episode_id')?.path).toBe('$.episode_id');
    expect(checkText('fine', 'episode_id')).toBeNull();
  });

  it('counts UTF-8 bytes like Buffer.byteLength', () => {
    for (const s of ['', 'abc', 'é', '世界', '😀', 'a\ud800b', '\udc00']) expect(utf8Bytes(s)).toBe(Buffer.byteLength(s, 'utf8'));
  });
});
