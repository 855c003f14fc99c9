import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ActionDirective, ResponseMessage } from '@hub/protocol-openharness';
import { Client } from 'pg';
import { HubStack, TransportTestClient } from '@hub/testing';

// POST /v1/openharness against real ingress and worker processes (issue #4): the upstream
// fixtures, turns visible and approvable on the transport WebSocket (and the other way round),
// continuations, idempotency, privacy, and every error path. Every reply is validated against
// the upstream JSON Schema with ajv.

jest.setTimeout(120_000);

const UPSTREAM = path.resolve(__dirname, '../../../../../shared/fixtures/openharness');
const schema = JSON.parse(readFileSync(path.join(UPSTREAM, 'openharness-v1.draft.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateMessage = ajv.compile(schema);
const validateResponse = ajv.getSchema(`${schema.$id}#/$defs/responseMessage`);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };
let validated = 0;

beforeAll(async () => {
  stack = await HubStack.start({ label: 'openharness', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '2', HUB_APPROVAL_TTL_MS: '600000' } });
  tenant = await stack.createTenant('acme');
});
afterAll(() => stack?.stop());

interface Reply {
  status: number;
  headers: Headers;
  body: ResponseMessage;
  ms: number;
}

async function post(body: unknown, opts: { key?: string | null; headers?: Record<string, string>; raw?: string } = {}): Promise<Reply> {
  const key = opts.key === undefined ? tenant.apiKey : opts.key;
  const started = Date.now();
  const res = await fetch(`${stack.url}/v1/openharness`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}), ...opts.headers },
    body: opts.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const json = JSON.parse(text) as ResponseMessage;
  if (!validateResponse?.(json) || !validateMessage(json)) {
    throw new Error(`reply is not valid against the upstream schema: ${JSON.stringify(validateResponse?.errors ?? validateMessage.errors)}\n${text}`);
  }
  validated++;
  expect(json.protocol_version).toBe('1.0.0');
  expect(json.supported_protocol_versions).toEqual(['1.0.0']);
  return { status: res.status, headers: res.headers, body: json, ms: Date.now() - started };
}

const ask = (requestId: string, sessionId: string, userIntent: string, extra: Record<string, unknown> = {}) => ({
  protocol_version: '1.0.0',
  request_id: requestId,
  request: { context: { session_id: sessionId, user_intent: userIntent }, ...extra },
});
const continueWith = (requestId: string, continuation: unknown, hub?: Record<string, unknown>) => ({
  protocol_version: '1.0.0',
  request_id: requestId,
  request: { context: { continuation }, ...(hub ? { extensions: { 'dev.harnesshub': hub } } : {}) },
});
const directives = (r: Reply): ActionDirective[] => r.body.response.action_directives ?? [];
const ofType = (r: Reply, type: string) => directives(r).filter((d) => d.action_type === type);
const texts = (r: Reply) =>
  ofType(r, 'render_message')
    .map((d) => String(d.payload?.['text']))
    .join('');
const continuationOf = (d: ActionDirective | undefined) => d?.payload?.['continuation'] as { run_id: string; continuation_token: string };
const turnText = async (sessionId: string, turnId: string) => {
  const done = (await stack.events(tenant.tenantId, sessionId)).find((e) => e.type === 'TurnCompleted' && e.data.turnId === turnId);
  return done?.type === 'TurnCompleted' ? done.data.text : undefined;
};

describe('the upstream request fixtures', () => {
  const fixtures = readdirSync(UPSTREAM).filter((f) => f.endsWith('__request.json'));

  it.each(fixtures)('%s is served (with the tenant_id of the key) and refused as sent (another tenant)', async (file) => {
    const sent = JSON.parse(readFileSync(path.join(UPSTREAM, file), 'utf8'));
    const before = await stack.countAllEvents();
    const refused = await post(sent);
    expect([refused.status, refused.body.response.error?.code]).toEqual([403, 'forbidden']);
    expect(JSON.stringify(refused.body)).not.toContain(sent.request.auth.credential_ref);
    expect(await stack.countAllEvents()).toBe(before);

    const mine = { ...sent, request: { ...sent.request, auth: { ...sent.request.auth, tenant_id: tenant.tenantId } } };
    const reply = await post(mine);
    expect([reply.status, reply.body.response.status]).toEqual([200, 'success']);
    expect(reply.body.request_id).toBe(sent.request_id);
    expect(reply.body.correlation_id).toBe(sent.correlation_id);
    expect(texts(reply)).toContain(`You said: "${sent.request.context.user_intent}"`);
    const asked = Object.keys(sent.capabilities ?? {}).filter((k) => !(k in (reply.body.supported_capabilities ?? {})));
    expect((reply.body.capability_denials ?? []).map((d) => d.capability).sort()).toEqual(asked.sort());
    expect(JSON.stringify(reply.body)).not.toContain(sent.request.auth.credential_ref);

    const sessionId = [sent.request.context.session_id, sent.request.context.conversation_id].filter(Boolean).join(':');
    const requested = (await stack.events(tenant.tenantId, sessionId)).find((e) => e.type === 'TurnRequested');
    expect(requested?.metadata).toEqual(expect.objectContaining({ protocol: 'openharness', correlationId: sent.correlation_id ?? expect.any(String) }));
    if (requested?.type !== 'TurnRequested') throw new Error('no TurnRequested');
    for (const key of ['task_hint', 'shell', 'environment_state', 'attachments'] as const) {
      expect(requested.data.context[key]).toEqual(sent.request.context[key]);
    }
  });
});

describe('turns, approvals and the transport WebSocket', () => {
  it('a turn started here is visible on the WebSocket, and its approval is resolved from there', async () => {
    const ws = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'oh-ws-1' });
    await ws.waitFor('snapshot', (x) => x.state !== null);
    const first = await post(ask('req-ws-1', 'oh-ws-1', 'write "ok" to out.txt'));
    const [approval] = ofType(first, 'request_approval');
    expect(approval).toEqual(expect.objectContaining({ requires_user_approval: true, risk_tier: 'caution' }));
    expect(approval.deadline_ms).toBeGreaterThan(500_000);
    expect(approval.deadline_ms).toBeLessThanOrEqual(600_000);
    expect(continuationOf(approval).run_id).toBe('oh-req-ws-1');
    expect(texts(first)).toBe("I'll write 2 bytes to out.txt.\n\n");

    await ws.waitFor('the pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    expect(ws.state?.messages.find((m) => m.role === 'user')?.content).toBe('write "ok" to out.txt');
    ws.send([{ type: 'approve', approvalId: approval.payload?.['approval_id'] }]);
    await ws.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');

    const rest = await post(continueWith('req-ws-2', continuationOf(approval)));
    expect(texts(rest)).toBe('Done: wrote 2 bytes to out.txt.');
    expect(texts(first) + texts(rest)).toBe(await turnText('oh-ws-1', 'oh-req-ws-1'));
    await ws.close();
  });

  it('an approval raised on the WebSocket is resolved here, with the rest of that turn in the reply', async () => {
    const ws = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'ws-oh-1' });
    await ws.waitFor('snapshot', (x) => x.state !== null);
    ws.send([{ type: 'submit', prompt: 'delete notes.txt' }]);
    await ws.waitFor('the pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const approvalId = ws.lastAssistant()?.toolCalls?.[0]?.approval?.id;
    const reply = await post({
      protocol_version: '1.0.0',
      request_id: 'req-ws-oh-1',
      request: {
        context: { session_id: 'ws-oh-1' },
        extensions: { 'dev.harnesshub': { approval: { decision: 'denied', approval_id: approvalId, reason: 'not today' } } },
      },
    });
    expect(texts(reply)).toMatch(/denied/);
    await ws.waitFor('the denial', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'denied');
    const resolved = (await stack.events(tenant.tenantId, 'ws-oh-1')).find((e) => e.type === 'ApprovalResolved');
    expect(resolved?.data).toEqual(expect.objectContaining({ decision: 'denied', via: 'openharness', reason: 'not today' }));
    await ws.close();
  });

  it('answers an approval with the rest of the turn even while another transaction holds the log unsettled', async () => {
    const ws = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'ws-oh-open-tx' });
    await ws.waitFor('snapshot', (x) => x.state !== null);
    ws.send([{ type: 'submit', prompt: 'delete notes.txt' }]);
    await ws.waitFor('the pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const approvalId = ws.lastAssistant()?.toolCalls?.[0]?.approval?.id;
    // A writer open anywhere on the server keeps every later commit unsettled until it ends: the
    // answer's own event among them. The reply must not be read from the state before it.
    const other = new Client({ connectionString: stack.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT txid_current()');
      const ends = new Promise((r) => setTimeout(r, 500)).then(() => other.query('COMMIT'));
      const reply = await post({
        protocol_version: '1.0.0',
        request_id: 'req-ws-oh-open-tx',
        request: {
          context: { session_id: 'ws-oh-open-tx' },
          extensions: { 'dev.harnesshub': { approval: { decision: 'denied', approval_id: approvalId, reason: 'not now' } } },
        },
      });
      await ends;
      // Not the answered approval asked again: the turn after the denial.
      expect((reply.body.response.action_directives ?? []).some((d) => d.requires_user_approval)).toBe(false);
      expect(texts(reply)).toMatch(/denied/);
    } finally {
      await other.end();
      await ws.close();
    }
  });

  it('a decision sent with the continuation resolves the approval here; a repeat returns the first reply', async () => {
    const first = await post(ask('req-del-1', 'oh-del', 'delete notes.txt'));
    const [approval] = ofType(first, 'request_approval');
    expect(approval.risk_tier).toBe('dangerous');
    const decision = continueWith('req-del-2', continuationOf(approval), { approval: { decision: 'approved' } });
    const done = await post(decision);
    expect(texts(done)).toMatch(/^Done: /);
    expect(ofType(done, 'request_approval')).toEqual([]);
    const count = await stack.countAllEvents();
    const again = await post(decision);
    expect(again.body).toEqual(done.body);
    expect(await stack.countAllEvents()).toBe(count);
    const stale = await post(continueWith('req-del-3', continuationOf(approval), { approval: { decision: 'denied' } }));
    expect([stale.status, stale.body.response.error?.code]).toEqual([409, 'approval_already_resolved']);
  });
});

describe('the wait budget and idempotency', () => {
  it('a turn that outlasts the budget returns success with a continuation; collecting gets exactly the rest', async () => {
    const first = await post(ask('req-long-1', 'oh-long', 'long answer 400', { extensions: { 'dev.harnesshub': { wait_ms: 0 } } }));
    expect([first.status, first.body.response.status]).toEqual([200, 'success']);
    const [next] = ofType(first, 'dev.harnesshub.continue');
    expect(typeof next?.payload?.['fallback_message']).toBe('string');
    const rest = await post(continueWith('req-long-2', continuationOf(next), { wait_ms: 30_000 }));
    expect(ofType(rest, 'dev.harnesshub.continue')).toEqual([]);
    expect(texts(first) + texts(rest)).toBe(await turnText('oh-long', 'oh-req-long-1'));
    expect((await turnText('oh-long', 'oh-req-long-1'))?.split(' ').length).toBe(400);
  });

  it('the same request_id twice returns the first reply and starts nothing new; engine_latency_ms is real', async () => {
    const first = await post(ask('req-same', 'oh-same', 'calculate 2 * 21'));
    expect(texts(first)).toContain('42');
    const latency = first.body.response.engine_latency_ms ?? -1;
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThanOrEqual(first.ms);
    const count = await stack.countAllEvents();
    const second = await post(ask('req-same', 'oh-same', 'calculate 2 * 21'));
    expect(second.body).toEqual(first.body);
    expect(await stack.countAllEvents()).toBe(count);
    const turns = (await stack.events(tenant.tenantId, 'oh-same')).filter((e) => e.type === 'TurnRequested');
    expect(turns).toHaveLength(1);
  });

  it('a reused request_id with another intent is refused, not answered with the first reply (issue 11, defect 9)', async () => {
    const first = await post(ask('req-reused', 'oh-reused', 'calculate 2 * 21'));
    expect(texts(first)).toContain('42');
    const count = await stack.countAllEvents();
    const other = await post(ask('req-reused', 'oh-reused', 'calculate 3 * 3'));
    expect(other.body.response.status).toBe('error');
    expect(other.body.response.error).toEqual(expect.objectContaining({ message: expect.stringContaining('already used with a different request') }));
    expect(await stack.countAllEvents()).toBe(count);
  });

  it('a failed turn is status error with the mapped code', async () => {
    const r = await post(ask('req-fail', 'oh-fail', 'fail with auth'));
    expect([r.status, r.body.response.error?.code, r.body.response.error?.retryable]).toEqual([502, 'engine_error', false]);
  });
});

describe('privacy, correlation and streaming', () => {
  it('secret state and auth never reach the log, the events or the reply; correlation and trace headers are honoured', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const body = ask('req-secret', 'oh-secret', 'hello', {
      auth: { tenant_id: tenant.tenantId, credential_ref: 'cred-XYZ-789' },
    }) as { request: { context: Record<string, unknown> } };
    body.request.context['environment_state'] = { privacy_tier: 'secret', clipboard: 'SECRET-CLIPBOARD-123' };
    const r = await post(body, { headers: { 'X-Correlation-ID': 'corr-hdr-1', traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(r.body.correlation_id).toBe('corr-hdr-1');
    expect(r.headers.get('x-correlation-id')).toBe('corr-hdr-1');
    const events = await stack.events(tenant.tenantId, 'oh-secret');
    expect(events[0]?.metadata).toEqual(expect.objectContaining({ correlationId: 'corr-hdr-1', traceparent: expect.stringContaining(traceId) }));
    for (const where of [JSON.stringify(events), JSON.stringify(r.body), stack.ingress.stderr, ...stack.workers.map((w) => w.stderr)]) {
      expect(where).not.toContain('SECRET-CLIPBOARD-123');
      expect(where).not.toContain('cred-XYZ-789');
    }
  });

  it('streaming is denied explicitly, even with Accept: text/event-stream; extensions are kept in the event metadata', async () => {
    const body = { ...ask('req-sse', 'oh-sse', 'hello', { extensions: { 'com.example': { lane: 7 } } }), capabilities: { 'openharness.streaming': true } };
    const r = await post(body, { headers: { Accept: 'text/event-stream' } });
    expect(r.body.capability_denials).toEqual([expect.objectContaining({ capability: 'openharness.streaming', code: 'not_supported' })]);
    const [requested] = await stack.events(tenant.tenantId, 'oh-sse');
    expect(requested.metadata['openharness']).toEqual(expect.objectContaining({ extensions: { 'com.example': { lane: 7 } } }));
  });
});

describe('error paths', () => {
  const cases: [string, () => Promise<Reply>, number, string][] = [
    ['invalid JSON', () => post(null, { raw: '{"protocol_version": "1.0.0", ' }), 400, 'invalid_request'],
    ['a body over the size limit', () => post(null, { raw: JSON.stringify(ask('big', 's', 'x'.repeat(1_100_000))) }), 413, 'payload_too_large'],
    ['missing request', () => post({ protocol_version: '1.0.0', request_id: 'e1' }), 400, 'invalid_request'],
    ['protocol_version of the wrong type', () => post({ ...ask('e2', 's', 'hi'), protocol_version: 1 }), 400, 'invalid_request'],
    ['an unsupported major', () => post({ ...ask('e3', 's', 'hi'), protocol_version: '2.0.0' }), 400, 'protocol_version_unsupported'],
    [
      'an inline attachment blob',
      () => post(ask('e4', 's', 'hi', { context: { user_intent: 'hi', attachments: [{ mime_type: 'image/png', data: 'iVBORw0KGgo'.repeat(10) }] } })),
      400,
      'invalid_request',
    ],
    ['a tenant mismatch', () => post(ask('e5', 's', 'hi', { auth: { tenant_id: '00000000-0000-4000-8000-000000000000' } })), 403, 'forbidden'],
    ['no key', () => post(ask('e6', 's', 'hi'), { key: null }), 401, 'unauthenticated'],
    ['a bad key', () => post(ask('e7', 's', 'hi'), { key: 'hub_nope_nope' }), 401, 'unauthenticated'],
  ];

  it.each(cases)('%s: the spec’s error shape, the right status, nothing appended', async (_name, send, status, code) => {
    const before = await stack.countAllEvents();
    const r = await send();
    expect([r.status, r.body.response.status, r.body.response.error?.code]).toEqual([status, 'error', code]);
    expect(typeof r.body.response.error?.retryable).toBe('boolean');
    expect(await stack.countAllEvents()).toBe(before);
  });

  it("another tenant's continuation token finds nothing", async () => {
    const first = await post(ask('req-mine', 'oh-mine', 'write "x" to y.txt'));
    const other = await stack.createTenant('other');
    const r = await post(continueWith('req-theirs', continuationOf(ofType(first, 'request_approval')[0]), { approval: { decision: 'approved' } }), {
      key: other.apiKey,
    });
    expect([r.status, r.body.response.error?.code]).toEqual([404, 'not_found']);
    const resolved = (await stack.events(tenant.tenantId, 'oh-mine')).filter((e) => e.type === 'ApprovalResolved');
    expect(resolved).toEqual([]);
  });

  it('validated every reply against the upstream schema', () => {
    expect(validated).toBeGreaterThan(20);
  });
});
