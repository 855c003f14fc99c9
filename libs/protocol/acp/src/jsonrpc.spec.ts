import { decodePermissionAnswer, parseFrame, RPC, stopReasonOf } from './index';

describe('parseFrame', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseFrame('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')).toEqual({ kind: 'request', id: 1, method: 'initialize', params: {} });
    expect(parseFrame('{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}').kind).toBe('notification');
    expect(parseFrame('{"jsonrpc":"2.0","id":"p1","result":{"outcome":{"outcome":"cancelled"}}}').kind).toBe('response');
  });
  it('answers malformed JSON with -32700 and non-JSON-RPC with -32600', () => {
    expect(parseFrame('{nope')).toEqual(expect.objectContaining({ kind: 'invalid', id: null, error: expect.objectContaining({ code: RPC.PARSE_ERROR }) }));
    expect(parseFrame('[1,2]')).toEqual(expect.objectContaining({ kind: 'invalid', error: expect.objectContaining({ code: RPC.INVALID_REQUEST }) }));
    expect(parseFrame('{"jsonrpc":"2.0","id":{},"method":"x"}')).toEqual(expect.objectContaining({ kind: 'invalid' }));
  });
});

describe('decodePermissionAnswer', () => {
  it('reads the ACP forms', () => {
    expect(decodePermissionAnswer({ outcome: { outcome: 'selected', optionId: 'allow-once' } })).toEqual({ decision: 'approved', reason: null });
    expect(decodePermissionAnswer({ outcome: { outcome: 'selected', optionId: 'reject-once' } })?.decision).toBe('denied');
    expect(decodePermissionAnswer({ outcome: { outcome: 'selected' } })?.decision).toBe('approved');
    expect(decodePermissionAnswer({ outcome: { outcome: 'cancelled' } })?.decision).toBe('denied');
  });
  it('reads the legacy granted forms', () => {
    expect(decodePermissionAnswer({ granted: true })?.decision).toBe('approved');
    expect(decodePermissionAnswer({ granted: true, args: { path: 'b' } })?.decision).toBe('approved');
    expect(decodePermissionAnswer({ granted: false, reason: 'no' })).toEqual({ decision: 'denied', reason: 'no' });
  });
  it('fails closed on anything else', () => {
    expect(decodePermissionAnswer({ ok: 1 })).toBeNull();
    expect(decodePermissionAnswer(null)).toBeNull();
  });
});

describe('stopReasonOf', () => {
  it('maps turn ends to ACP stop reasons', () => {
    expect(['completed', 'max_steps', 'cancelled', 'length', 'refused'].map((x) => stopReasonOf(x as Parameters<typeof stopReasonOf>[0]))).toEqual([
      'end_turn',
      'max_turn_requests',
      'cancelled',
      'max_tokens',
      'refusal',
    ]);
  });
});
