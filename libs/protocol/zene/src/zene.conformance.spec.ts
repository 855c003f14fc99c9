import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ackLine, bridgeReply, BridgeReply, decode, DEFAULT_MAX_INPUT_BYTES, errorLine, eventLine, finalLine, ProtocolLine, type ZeneUsage } from './index';

// Walks every upstream zene fixture (ParaTensor/zene v0.6.5 and clawbridge, see
// shared/fixtures/README.md): each request is accepted; each reply validates against our strict
// schemas; and what we encode for the same situation has exactly the fixture's keys and types.

// src → zene → protocol → libs → repo → the shared folder beside the repo.
const UPSTREAM = path.resolve(__dirname, '../../../../../shared/fixtures/zene');
const opts = { maxInputBytes: DEFAULT_MAX_INPUT_BYTES };

const files = (dir: string) =>
  readdirSync(path.join(UPSTREAM, dir))
    .filter((f) => f.endsWith('.json'))
    .sort();
const raw = (dir: string, f: string) => readFileSync(path.join(UPSTREAM, dir, f), 'utf8');
// `error-invalid-request.json` is a reply (an `error` line) despite its name.
const isRequest = (f: string) => !f.startsWith('error-') && (f.startsWith('request-') || f.endsWith('-request.json'));

/** Keys and JSON types, recursively: what "same shape" means for a reply. */
function shape(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as object)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shape(x)]),
    );
  return typeof v;
}

const usage: ZeneUsage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };
const ids = { request_id: 'r-1', session_id: 's-1' };
const at = { tsMs: 1_773_935_000_000, latencyMs: 321 };

/** Our line(s) for the situation each upstream reply fixture shows. A new fixture must be added here. */
const OURS: Record<string, () => unknown> = {
  'bridge-compat/response-success.json': () => bridgeReply(ids, { kind: 'ok', text: 'hi', usage }),
  'bridge-compat/response-success-snapshot.json': () => bridgeReply(ids, { kind: 'ok', text: 'hi', usage }),
  'bridge-compat/response-success-zh.json': () => bridgeReply(ids, { kind: 'ok', text: '好', usage }),
  'bridge-compat/response-error-provider-auth.json': () =>
    bridgeReply(ids, { kind: 'failed', code: 'PROVIDER_AUTH', message: 'provider authentication failed', retryable: false, usage }),
  'bridge-compat/response-error-timeout.json': () => bridgeReply(ids, { kind: 'timeout', usage }),
  'protocol-v1/ack-duplicate-in-progress.json': () => ackLine(ids, 'DUPLICATE_IN_PROGRESS', at.tsMs, { existing_request_id: 'r-0' }),
  'protocol-v1/cancel-responses.sequence.json': () => [
    ackLine(ids, 'CANCEL_ACCEPTED', at.tsMs, { target_request_id: 'r-0' }),
    finalLine(ids, { kind: 'canceled', reason: 'user', usage }, at),
  ],
  'protocol-v1/error-invalid-request.json': () => {
    const d = decode('{"type":"run","request_id":"bad-001","session_id":"s-user-1","prompt":"  "}', opts);
    if (d.ok) throw new Error('a blank prompt must be refused');
    return errorLine(d.error, 'INVALID_REQUEST', d.error.message, at.tsMs);
  },
  'protocol-v1/final-replayed.json': () => finalLine(ids, { kind: 'ok', text: '...', usage }, { ...at, replayed: true }),
  'protocol-v1/ping-ack.json': () => ackLine(ids, 'PONG', at.tsMs),
  'protocol-v1/run-stream-responses.sequence.json': () => [
    ackLine(ids, 'ACCEPTED', at.tsMs, { request_ts_ms: at.tsMs - 1 }),
    eventLine(ids, 'REQUEST_ACCEPTED', 1, { timeout_ms: 120000, metadata: { channel: 'x', trace_id: 't' } }, at.tsMs),
    eventLine(ids, 'RUN_FINISHED', 2, {}, at.tsMs),
    finalLine(ids, { kind: 'ok', text: 'done', usage }, at),
  ],
  'protocol-v1/run-timeout-final.json': () => finalLine(ids, { kind: 'timeout', usage }, at),
};

describe.each(['bridge-compat', 'protocol-v1'])('%s requests', (dir) => {
  const requests = files(dir).filter(isRequest);
  it('has request fixtures', () => expect(requests.length).toBeGreaterThan(0));
  it.each(requests)('%s is accepted', (f) => {
    const text = raw(dir, f).trim();
    const result = decode(text, opts);
    if (!result.ok) throw new Error(result.error.message);
    const json = JSON.parse(text) as { request_id: string; type?: string };
    expect(result.request.request_id).toBe(json.request_id);
    expect(result.request.type).toBe(json.type ?? 'run');
  });
});

describe('every reply fixture', () => {
  const replies = ['bridge-compat', 'protocol-v1'].flatMap((dir) =>
    files(dir)
      .filter((f) => !isRequest(f))
      .map((f) => `${dir}/${f}`),
  );

  it('is mapped to a situation we encode', () => expect(Object.keys(OURS).sort()).toEqual(replies.sort()));

  it.each(replies)('%s validates against our strict schema', (name) => {
    const [dir, f] = name.split('/');
    const value: unknown = JSON.parse(raw(dir, f));
    const lines = Array.isArray(value) ? value : [value];
    for (const line of lines) {
      const schema = dir === 'bridge-compat' ? BridgeReply : ProtocolLine;
      expect(schema.parse(line)).toEqual(line);
    }
  });

  it.each(replies)('%s: ours has exactly its keys and types', (name) => {
    const [dir, f] = name.split('/');
    expect(shape(OURS[name]())).toEqual(shape(JSON.parse(raw(dir, f))));
  });
});

describe('upstream wording', () => {
  it('a timeout final carries upstream text and error object', () => {
    const fixture = JSON.parse(raw('protocol-v1', 'run-timeout-final.json')) as Record<string, unknown>;
    const ours = finalLine(ids, { kind: 'timeout', usage: fixture['usage'] as ZeneUsage }, at);
    expect({ text: ours.text, error: ours.error, status: ours.status }).toEqual({ text: fixture['text'], error: fixture['error'], status: fixture['status'] });
  });

  it('a bridge-compat timeout says what upstream says', () => {
    const fixture = JSON.parse(raw('bridge-compat', 'response-error-timeout.json')) as Record<string, unknown>;
    const ours = bridgeReply({ request_id: 'req_001', session_id: 'qq_user_42' }, { kind: 'timeout', usage: fixture['usage'] as ZeneUsage });
    expect(ours).toEqual(fixture);
  });
});

describe('clawbridge', () => {
  // clawbridge receives this body on /v1/respond and, for `zene-host-v1`, writes a run line of
  // its own (crates/clawbridge encode_command_request): new request_id, a key derived from
  // session|channel|prompt, 90 % of its timeout. That line is what reaches `hub host`.
  const body = JSON.parse(raw('clawbridge', 'v1-respond-request.json')) as Record<string, string>;

  it('the run line clawbridge writes for its body is accepted, with channel and agent kept', () => {
    const line = JSON.stringify({
      protocol_version: 1,
      type: 'run',
      request_id: '3f1c2b9e-8a57-4c55-9f57-1f0f8f6f2a10',
      session_id: body['session_id'],
      channel_id: body['channel_id'],
      agent: body['agent'],
      prompt: body['prompt'],
      timeout_ms: 162000,
      idempotency_key: '6b1f5c2e-0d6b-5a9e-8c1e-1b2f3a4c5d6e',
    });
    const result = decode(`${line}\n`, opts);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.request).toEqual(expect.objectContaining({ session_id: 'qq:private:u1', channel_id: 'qq', agent: 'github-copilot-sdk' }));
  });

  it('its HTTP body itself is not a zene request (no request_id) and is refused by name', () => {
    const result = decode(JSON.stringify(body), opts);
    expect(result.ok ? 'accepted' : result.error.message).toMatch(/request_id is required/);
  });
});
