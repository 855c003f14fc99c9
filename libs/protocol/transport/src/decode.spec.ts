import { decode, MAX_CLIENT_MESSAGE_CHARS, MAX_COMMANDS_PER_MESSAGE, type DecodeContext, type DecodeResult } from './decode';

function context(): DecodeContext & { calls: () => number } {
  let n = 0;
  return { sessionId: 's-1', newId: () => `id-${++n}`, calls: () => n };
}
const message = (...commands: unknown[]) => JSON.stringify({ type: 'commands', commands });
const errorOf = (result: DecodeResult) => (result.ok ? null : result.error);

describe('decode: commands', () => {
  it('turns submit into SubmitTurn with a fresh turn id and the default policy', () => {
    expect(decode(message({ type: 'submit', prompt: 'Hello' }), context())).toEqual({
      ok: true,
      commands: [{ type: 'SubmitTurn', sessionId: 's-1', turnId: 'id-1', prompt: 'Hello', context: {}, busyPolicy: 'enqueue' }],
    });
  });

  it('uses the client id as the turn id, so a resent submit is the same turn', () => {
    const ctx = context();
    const result = decode(message({ type: 'submit', prompt: 'Hi', id: 'turn-9', busyPolicy: 'reject' }), ctx);
    expect(result.ok && result.commands[0]).toMatchObject({ turnId: 'turn-9', busyPolicy: 'reject' });
    expect(ctx.calls()).toBe(0);
  });

  it('turns cancel into CancelTurn of the active turn', () => {
    expect(decode(message({ type: 'cancel' }), context())).toEqual({
      ok: true,
      commands: [{ type: 'CancelTurn', sessionId: 's-1', reason: 'user' }],
    });
  });

  it('turns approve and deny into ResolveApproval, in order', () => {
    const result = decode(message({ type: 'approve', approvalId: 'a1' }, { type: 'deny', approvalId: 'a2', reason: 'no' }), context());
    expect(result.ok && result.commands).toEqual([
      { type: 'ResolveApproval', sessionId: 's-1', approvalId: 'a1', decision: 'approved', reason: null },
      { type: 'ResolveApproval', sessionId: 's-1', approvalId: 'a2', decision: 'denied', reason: 'no' },
    ]);
  });

  it('keeps unknown extra fields out of the commands', () => {
    const raw = JSON.stringify({ type: 'commands', commands: [{ type: 'cancel', extra: 1 }], system: 'x' });
    expect(decode(raw, context())).toEqual({ ok: true, commands: [{ type: 'CancelTurn', sessionId: 's-1', reason: 'user' }] });
  });
});

describe('decode: errors', () => {
  it(`refuses a frame of more than ${MAX_COMMANDS_PER_MESSAGE} commands as a whole, before deciding any (issue 11, defect 5)`, () => {
    const ctx = context();
    const submits = Array.from({ length: 1000 }, (_, i) => ({ type: 'submit', prompt: `p${i}` }));
    const error = errorOf(decode(message(...submits), ctx));
    expect(error).toEqual({ code: 'invalid_message', message: `a frame carries at most ${MAX_COMMANDS_PER_MESSAGE} commands; this one has 1000` });
    expect(ctx.calls()).toBe(0);
    const atCap = decode(message(...submits.slice(0, MAX_COMMANDS_PER_MESSAGE)), ctx);
    expect(atCap.ok && atCap.commands).toHaveLength(MAX_COMMANDS_PER_MESSAGE);
  });

  it('reports non-JSON as invalid_json', () => {
    expect(errorOf(decode('{"type":', context()))?.code).toBe('invalid_json');
  });

  it('names an unknown command', () => {
    const error = errorOf(decode(message({ type: 'cancel' }, { type: 'rewind', to: 3 }), context()));
    expect(error?.code).toBe('unknown_command');
    expect(error?.message).toContain('"rewind"');
  });

  it('reports a missing prompt with its path', () => {
    const error = errorOf(decode(message({ type: 'submit' }), context()));
    expect(error?.code).toBe('invalid_message');
    expect(error?.message).toMatch(/^commands\[0\]\.prompt: /);
  });

  it('refuses a blank prompt', () => {
    expect(errorOf(decode(message({ type: 'submit', prompt: ' \n ' }), context()))).toEqual({
      code: 'invalid_message',
      message: 'commands[0].prompt: must not be empty',
    });
  });

  it.each([
    ['a numeric prompt', message({ type: 'submit', prompt: 42 })],
    ['a numeric approval id', message({ type: 'approve', approvalId: 7 })],
    ['commands as an object', JSON.stringify({ type: 'commands', commands: { type: 'cancel' } })],
    ['another message type', JSON.stringify({ type: 'state', state: {} })],
    ['a command without type', message({ prompt: 'x' })],
    ['a null command', message(null)],
    ['null', 'null'],
    ['an array', '[]'],
    ['a string', '"submit"'],
  ])('reports %s as invalid_message', (_what, raw) => {
    expect(errorOf(decode(raw, context()))?.code).toBe('invalid_message');
  });

  it('is all or nothing', () => {
    expect(decode(message({ type: 'cancel' }, { type: 'submit', prompt: '' }), context()).ok).toBe(false);
  });

  it('refuses an oversized frame before parsing it', () => {
    const raw = message({ type: 'submit', prompt: 'x'.repeat(MAX_CLIENT_MESSAGE_CHARS) });
    expect(errorOf(decode(raw, context()))?.message).toMatch(/limit/);
  });

  it('checks the session id the connection gave it', () => {
    const ctx = { sessionId: 'bad id with spaces', newId: () => 'x' };
    expect(errorOf(decode(message({ type: 'cancel' }), ctx))?.message).toMatch(/^commands\[0\]: sessionId: /);
  });
});
