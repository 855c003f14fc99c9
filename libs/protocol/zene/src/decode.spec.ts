import { decode, decodeValue, utf8ByteLength } from './decode';

const opts = { maxInputBytes: 1024 };
const run = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ protocol_version: 1, type: 'run', request_id: 'r1', session_id: 's1', prompt: 'hi', ...extra });
const message = (line: string) => {
  const r = decode(line, opts);
  return r.ok ? 'ok' : r.error.message;
};

describe('decode: accepted', () => {
  it('a full run line, keeping channel_id, agent, timeout and key', () => {
    const r = decode(run({ channel_id: 'qq', agent: 'default', timeout_ms: 5000, idempotency_key: 'k' }), opts);
    expect(r).toEqual({
      ok: true,
      request: expect.objectContaining({ type: 'run', channel_id: 'qq', agent: 'default', timeout_ms: 5000, idempotency_key: 'k' }),
    });
  });

  it('the spec minimum: no protocol_version, no type, no key; unknown keys ignored', () => {
    const r = decode(JSON.stringify({ request_id: 'r', session_id: 's', prompt: 'p', extra: { x: 1 } }), opts);
    expect(r.ok && r.request).toEqual({ type: 'run', request_id: 'r', session_id: 's', prompt: 'p' });
  });

  it('null optional fields (serde Option) and surrounding whitespace', () => {
    expect(message(`  ${run({ channel_id: null, idempotency_key: null, timeout_ms: null })}\r\n`)).toBe('ok');
  });

  it.each([
    ['ping', { type: 'ping', request_id: 'p1' }],
    ['cancel by target_request_id', { type: 'cancel', request_id: 'c1', session_id: 's', target_request_id: 'r1' }],
    ['cancel by cancel_request_id', { type: 'cancel', request_id: 'c1', cancel_request_id: 'r1' }],
    ['session_close', { type: 'session_close', request_id: 'x1', session_id: 's' }],
  ])('%s', (_n, body) => expect(message(JSON.stringify({ protocol_version: 1, ...body }))).toBe('ok'));
});

describe('decode: INVALID_REQUEST', () => {
  it.each([
    ['missing request_id', JSON.stringify({ session_id: 's', prompt: 'p' }), /request_id is required/],
    ['missing session_id', JSON.stringify({ request_id: 'r', prompt: 'p' }), /session_id is required/],
    ['missing prompt', JSON.stringify({ request_id: 'r', session_id: 's' }), /prompt is required/],
    ['blank prompt', run({ prompt: ' \n\t ' }), /prompt: must not be empty/],
    ['blank session_id', run({ session_id: '   ' }), /session_id: must not be empty/],
    ['blank idempotency_key', run({ idempotency_key: ' ' }), /idempotency_key: must not be empty/],
    ['prompt of the wrong type', run({ prompt: 42 }), /prompt/],
    ['zero timeout', run({ timeout_ms: 0 }), /timeout_ms/],
    ['unparseable JSON', '{"request_id":', /invalid JSON payload/],
    ['a JSON array', '[1,2]', /must be a JSON object/],
    ['a JSON string', '"run"', /must be a JSON object/],
    ['an empty line', '   ', /empty request line/],
    ['another protocol version', run({ protocol_version: 2 }), /unsupported protocol_version/],
    ['an unknown type', run({ type: 'explode' }), /unsupported request type "explode"/],
    ['a cancel without a target', JSON.stringify({ type: 'cancel', request_id: 'c' }), /requires target_request_id or cancel_request_id/],
  ])('%s', (_n, line, expected) => expect(message(line)).toMatch(expected));

  it('over the size limit, counted in UTF-8 bytes, before parsing', () => {
    const line = run({ prompt: '好'.repeat(400) }); // 1200 bytes, 400 characters of prompt
    expect(line.length).toBeLessThan(1024);
    expect(message(line)).toMatch(/exceeds the input size limit of 1024 bytes/);
  });

  it('keeps the ids it could read, for the reply', () => {
    const r = decode(run({ prompt: '' }), opts);
    expect(r.ok ? null : { request_id: r.error.request_id, session_id: r.error.session_id }).toEqual({ request_id: 'r1', session_id: 's1' });
    const bad = decode('nope', opts);
    expect(bad.ok ? null : [bad.error.request_id, bad.error.session_id]).toEqual(['unknown', null]);
  });

  it('never throws on odd values', () => {
    for (const v of [null, undefined, 0, true, [], { request_id: {} }, { type: null, request_id: 'r', session_id: 's', prompt: 'p' }]) {
      expect(() => decodeValue(v)).not.toThrow();
    }
    expect(decodeValue({ type: null, request_id: 'r', session_id: 's', prompt: 'p' }).ok).toBe(true);
  });
});

describe('utf8ByteLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['好', 3],
    ['😀', 4],
    ['\ud800', 3],
  ])('%j → %d', (s, n) => expect(utf8ByteLength(s)).toBe(n));
});
