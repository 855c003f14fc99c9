import { ackLine, bridgeReply, errorLine, finalLine, rejected, resultLines, usageOf } from './encode';
import { BridgeReply, ProtocolLine } from './schema';

const ids = { request_id: 'r1', session_id: 's1' };
const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
const at = { tsMs: 1000.4, latencyMs: 12.6 };

describe('bridge-compat replies', () => {
  it('success: text, nulls, real usage', () => {
    expect(bridgeReply(ids, { kind: 'ok', text: 'hello', usage })).toEqual({
      ok: true,
      request_id: 'r1',
      session_id: 's1',
      text: 'hello',
      error_code: null,
      error_message: null,
      usage,
    });
  });

  it.each([
    ['failed', { kind: 'failed', code: 'PROVIDER_DOWN', message: 'down', retryable: true, usage } as const, 'PROVIDER_DOWN', usage],
    ['rejected', rejected('BUSY', 'session is running turn t'), 'BUSY', { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
    ['timeout', { kind: 'timeout', usage } as const, 'TIMEOUT', usage],
    ['canceled', { kind: 'canceled', reason: 'user', usage } as const, 'INTERNAL', usage],
  ])('%s: ok false, empty text, the code', (_n, result, code, u) => {
    const reply = bridgeReply(ids, result);
    expect(BridgeReply.parse(reply)).toEqual(reply);
    expect(reply).toEqual(expect.objectContaining({ ok: false, text: '', error_code: code, usage: u }));
    expect(reply.error_message).toEqual(expect.any(String));
  });
});

describe('protocol-mode lines', () => {
  it('final OK rounds times and validates', () => {
    const line = finalLine(ids, { kind: 'ok', text: 'x', usage }, at);
    expect(line).toEqual(expect.objectContaining({ type: 'final', status: 'OK', ts_ms: 1000, latency_ms: 13, error: null }));
    expect(line).not.toHaveProperty('replayed');
    expect(ProtocolLine.parse(line)).toEqual(line);
  });

  it('final ERROR carries upstream fallback text and the turn retryability', () => {
    const line = finalLine(ids, { kind: 'failed', code: 'PROVIDER_RATE_LIMIT', message: '429', retryable: true, usage }, at);
    expect(line).toEqual(
      expect.objectContaining({
        status: 'ERROR',
        text: 'Provider is rate limited. Please retry shortly.',
        error: { code: 'PROVIDER_RATE_LIMIT', message: '429', retryable: true },
      }),
    );
  });

  it('a rejected request is one error line; BUSY is retryable with http_status 429 as upstream', () => {
    const lines = resultLines(ids, rejected('BUSY', 'busy'), at);
    expect(lines).toEqual([errorLine(ids, 'BUSY', 'busy', at.tsMs)]);
    expect(lines[0]).toEqual(expect.objectContaining({ type: 'error', error: { code: 'BUSY', message: 'busy', retryable: true, http_status: 429 } }));
    expect(resultLines(ids, rejected('INVALID_REQUEST', 'bad'), at)[0]).toEqual(
      expect.objectContaining({ error: { code: 'INVALID_REQUEST', message: 'bad', retryable: false } }),
    );
  });

  it('acks carry only the extras given', () => {
    expect(ackLine({ request_id: 'p', session_id: null }, 'PONG', 5)).toEqual({
      protocol_version: 1,
      type: 'ack',
      request_id: 'p',
      session_id: null,
      ts_ms: 5,
      status: 'PONG',
    });
  });
});

it('usageOf renames the hub counts', () => {
  expect(usageOf({ promptTokens: 1, completionTokens: 2, totalTokens: 3 })).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
});
