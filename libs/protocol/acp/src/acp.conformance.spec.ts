import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { HubEvent, Recorded } from '@hub/domain';
import { encode, initialAcpView, initializeResult, isAgentMethod, parseParams, permissionRequest, type SessionUpdateNotification } from './index';
import { acpValidatorsFrom } from './testing/validators';

// Conformance: every upstream example request is accepted; every update the encoder emits is
// valid ACP v0.12.2 (standard variants) and passes Harn's profile where it covers the variant.

const SHARED = path.resolve(__dirname, '../../../../../shared/fixtures');
const readJson = (p: string): unknown => JSON.parse(fs.readFileSync(p, 'utf8'));
const examples = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: f, doc: readJson(path.join(dir, f)) as Record<string, unknown> }));

const v = acpValidatorsFrom(
  readJson(path.join(SHARED, 'acp-upstream/schema-v0.12.2/schema.json')) as object,
  readJson(path.join(SHARED, 'harn-acp/conformance/acp-session-update.schema.json')) as object,
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
);

describe('upstream ACP example requests', () => {
  const requests = examples(path.join(SHARED, 'acp-upstream/examples')).filter(
    ({ doc }) => typeof doc['method'] === 'string' && isAgentMethod(doc['method'] as string),
  );
  it('has agent-side requests to check', () => expect(requests.length).toBeGreaterThanOrEqual(8));
  it.each(requests.map((r) => [r.file, r.doc] as const))('%s is accepted', (_f, doc) => {
    const r = parseParams(doc['method'] as Parameters<typeof parseParams>[0], doc['params']);
    expect(r).toEqual(expect.objectContaining({ ok: true }));
  });
  it('rejects a prompt without a session id (-32602 path)', () => {
    expect(parseParams('session/prompt', { prompt: [{ type: 'text', text: 'x' }] }).ok).toBe(false);
  });
});

describe('upstream example session/update notifications and harn fixtures', () => {
  it('the ACP schema accepts the upstream notifications (the validator itself works)', () => {
    const notes = examples(path.join(SHARED, 'acp-upstream/examples')).filter(({ doc }) => doc['method'] === 'session/update');
    expect(notes.length).toBeGreaterThan(3);
    const bad = notes.filter((n) => v.acp(n.doc).length > 0).map((n) => n.file);
    // The upstream docs' mode example says `modeId`; the v0.12.2 schema says `currentModeId`
    // (we emit the schema's). Every other upstream notification must validate.
    expect(bad).toEqual(['session-modes__03__session_update-notification.json']);
  });
  it('the validator rejects a broken update', () => {
    expect(v.acp({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call' } } }).length).toBeGreaterThan(0);
  });
});

let pos = 0;
const rec = (e: HubEvent): Recorded<HubEvent> => ({
  ...e,
  eventId: `e${++pos}`,
  tenantId: 't',
  streamId: 'session-s',
  streamPosition: pos,
  globalPosition: pos,
  createdAt: '2026-01-01T00:00:00Z',
  metadata: { correlationId: 'c' },
});
const u = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const turn: HubEvent[] = [
  { type: 'SessionOpened', data: { sessionId: 's', openedVia: 'acp' } },
  { type: 'TurnRequested', data: { turnId: 't1', userMessageId: 'u1', prompt: 'write "x" to a.txt', context: {}, busyPolicy: 'enqueue' } },
  { type: 'TurnStarted', data: { turnId: 't1' } },
  { type: 'MessageStarted', data: { turnId: 't1', messageId: 'm1', role: 'assistant' } },
  {
    type: 'ModelCallStarted',
    data: { turnId: 't1', callId: 'c1', step: 0, provider: 'offline', model: 'scripted', messageCount: 1, toolNames: ['write_file'] },
  },
  { type: 'ThoughtDelta', data: { turnId: 't1', messageId: 'm1', callId: 'c1', offset: 0, text: 'hmm' } },
  { type: 'TextDelta', data: { turnId: 't1', messageId: 'm1', callId: 'c1', offset: 0, text: 'Writ' } },
  { type: 'TextDelta', data: { turnId: 't1', messageId: 'm1', callId: 'c1', offset: 4, text: 'ing' } },
  { type: 'ModelCallCompleted', data: { turnId: 't1', callId: 'c1', step: 0, text: 'Writing', toolCalls: [], finishReason: 'tool_calls', usage: u } },
  {
    type: 'ToolCallStarted',
    data: { turnId: 't1', messageId: 'm1', toolCallId: 'tc1', name: 'write_file', input: { path: 'a.txt' }, policy: 'ask', executor: 'builtin' },
  },
  {
    type: 'ApprovalRequested',
    data: {
      turnId: 't1',
      approvalId: 'a1',
      toolCallId: 'tc1',
      toolName: 'write_file',
      input: { path: 'a.txt' },
      riskTier: 'medium',
      reason: 'writes',
      deadlineAt: null,
    },
  },
  {
    type: 'ApprovalResolved',
    data: { turnId: 't1', approvalId: 'a1', toolCallId: 'tc1', decision: 'approved', by: { type: 'api_key', id: 'k' }, via: 'acp', reason: null },
  },
  { type: 'ToolCallUpdated', data: { turnId: 't1', toolCallId: 'tc1', message: 'writing' } },
  { type: 'ToolCallCompleted', data: { turnId: 't1', toolCallId: 'tc1', status: 'complete', output: 'ok', durationMs: 3 } },
  { type: 'ToolCallCompleted', data: { turnId: 't1', toolCallId: 'tc2', status: 'denied', output: 'denied', durationMs: 0 } },
  { type: 'MessageCompleted', data: { turnId: 't1', messageId: 'm1' } },
  { type: 'TurnFailed', data: { turnId: 't1', code: 'PROVIDER_DOWN', message: 'down', retryable: true } },
  { type: 'TurnCancelled', data: { turnId: 't1', reason: 'user', by: { type: 'api_key', id: 'k' } } },
  { type: 'TurnCompleted', data: { turnId: 't1', text: 'Writing', stopReason: 'end_turn', usage: u } },
];

describe('encode', () => {
  let view = initialAcpView();
  const out: SessionUpdateNotification[] = [];
  for (const e of turn) {
    const r = encode(rec(e), view, 's');
    view = r.view;
    out.push(...r.notifications);
  }
  it('emits the standard and extension variants in log order, with cursors', () => {
    expect(out.map((n) => n.params.update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'progress',
      'agent_thought_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'hitl_request',
      'tool_call_update',
      'hitl_resolved',
      'tool_call_update',
      'tool_call_update',
      'tool_call_update',
      'log',
    ]);
    const cursors = out.map((n) => n.params._meta.harn.cursor);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
  });
  it('puts visible_text / visible_delta under content._meta.harn', () => {
    const chunks = out.filter((n) => n.params.update.sessionUpdate === 'agent_message_chunk');
    expect(chunks[1].params.update['content']).toEqual({ type: 'text', text: 'ing', _meta: { harn: { visible_text: 'Writing', visible_delta: 'ing' } } });
  });
  it('puts tool lifecycle fields under _meta.harn', () => {
    const done = out.filter((n) => n.params.update.sessionUpdate === 'tool_call_update')[2].params.update;
    expect(done).toEqual(expect.objectContaining({ status: 'completed', _meta: { harn: { executor: 'harn_builtin', durationMs: 3 } } }));
    expect(done).not.toHaveProperty('durationMs');
  });
  it('every emitted update validates: ACP schema for standard variants, the Harn profile where it covers one', () => {
    for (const n of out) expect(v.check(n)).toEqual([]);
  });
  it('the permission request validates as an ACP RequestPermissionRequest', () => {
    const a = turn[10] as Extract<HubEvent, { type: 'ApprovalRequested' }>;
    expect(v.permissionRequest(permissionRequest('s', a.data, '2026-01-01T00:00:00Z'))).toEqual([]);
  });
  it('the initialize result validates as an ACP InitializeResponse', () => {
    expect(v.def('InitializeResponse', initializeResult({ version: '0.0.0', extensionMethods: ['session/inject'] }))).toEqual([]);
    // http MCP servers are offered only where the operator allows some URLs (HUB_MCP_HTTP_URLS).
    expect(initializeResult({ version: '0', extensionMethods: [] }).agentCapabilities.mcpCapabilities).toEqual({ http: false, sse: false });
    expect(initializeResult({ version: '0', extensionMethods: [], mcpHttp: true }).agentCapabilities.mcpCapabilities).toEqual({ http: true, sse: false });
  });
});
