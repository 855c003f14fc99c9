import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { HubEvent, Recorded } from '@hub/domain';
import * as acp from './index';
import { acpValidatorsFrom } from './testing/validators';

// Issue 13, ACP / Harn bridge items 7-10 and 13: where the hub's wire departed from the Harn
// bridge spec (specs/harn-acp-bridge-protocol.md) and its pinned fixtures.

const SHARED = path.resolve(__dirname, '../../../../../shared/fixtures');
const readJson = (p: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(SHARED, p), 'utf8'));
const v = acpValidatorsFrom(
  readJson('acp-upstream/schema-v0.12.2/schema.json'),
  readJson('harn-acp/conformance/acp-session-update.schema.json'),
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
);

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
const started = (toolCallId: string, name: string, executor: string): HubEvent => ({
  type: 'ToolCallStarted',
  data: { turnId: 't1', messageId: 'm1', toolCallId, name, input: {}, policy: 'allow', executor },
});
const completed = (toolCallId: string): HubEvent => ({
  type: 'ToolCallCompleted',
  data: { turnId: 't1', toolCallId, status: 'complete', output: 'ok', durationMs: 1 },
});

/** The `_meta.harn` of every update the events encode to, in order. */
function metas(events: HubEvent[]): Record<string, unknown>[] {
  let view = acp.initialAcpView();
  const out: Record<string, unknown>[] = [];
  for (const e of events) {
    const r = acp.encode(rec(e), view, 's');
    view = r.view;
    for (const n of r.notifications) {
      expect(v.check(n)).toEqual([]);
      out.push((n.params.update['_meta'] as { harn: Record<string, unknown> }).harn);
    }
  }
  return out;
}

describe('item 7: _meta.harn.executor uses the spec variants', () => {
  it('maps the hub tools, MCP servers and wrapped harnesses; unknown is omitted', () => {
    const out = metas([
      started('a', 'read_file', 'builtin'),
      completed('a'),
      started('b', 'echo', 'mcp:echo'),
      completed('b'),
      started('c', 'Bash', 'harness:acp:claude'),
      completed('c'),
      started('d', 'nope', 'none'),
      completed('d'),
      completed('never-started'),
    ]);
    expect(out.map((m) => m['executor'])).toEqual([
      'harn_builtin',
      'harn_builtin',
      { kind: 'mcp_server', serverName: 'echo' },
      { kind: 'mcp_server', serverName: 'echo' },
      'provider_native',
      'provider_native',
      undefined,
      undefined,
      undefined,
    ]);
    expect(out.filter((m) => m['executor'] === undefined).every((m) => !('executor' in m))).toBe(true);
  });
  it('matches the pinned harn-serve fixture shape', () => {
    const fixture = JSON.stringify(readJson('harn-acp/harn-serve/session_update_standard.json'));
    expect(fixture).toContain('"executor":"harn_builtin"');
    expect(acp.harnExecutor('builtin')).toBe('harn_builtin');
  });
});

describe('items 8 and 9: session/request_permission carries matched_rule, mutation and declaredPaths', () => {
  const asked = {
    turnId: 't1',
    approvalId: 'a1',
    toolCallId: 'tc1',
    toolName: 'write_file',
    input: { path: 'src/a.txt', content: 'x' },
    riskTier: 'medium' as const,
    reason: 'writes',
    deadlineAt: null,
  };
  const p = acp.permissionRequest('s', asked, '2026-01-01T00:00:00Z', 'builtin');
  const spec = readJson('harn-acp/docs-examples/session-request_permission-params.json');

  it('policyDecision.matched_rule names the rule, in the spec shape, also in undo_metadata', () => {
    expect(p.policyDecision.matched_rule).toEqual({ source: 'tool_policy', action: 'ask', id: 'write_file', index: 0 });
    expect((p.approvalRequest['undo_metadata'] as { policy_decision: unknown }).policy_decision).toEqual(p.policyDecision);
    const harness = acp.permissionRequest('s', asked, '2026-01-01T00:00:00Z', 'harness:acp:claude');
    expect(harness.policyDecision.matched_rule).toEqual({ source: 'harness', action: 'ask', id: 'harness:acp:claude', index: 0 });
  });
  it("names the tenant policy's rule and version when one asked (issue 23)", () => {
    const ruled = acp.permissionRequest('s', { ...asked, policy: { version: 2, rule: 'writes-ask', ruleIndex: 3 } }, 'now', 'builtin');
    expect(ruled.policyDecision.matched_rule).toEqual({ source: 'tenant_policy', action: 'ask', id: 'writes-ask', index: 3, policy_version: 2 });
    const builtin = acp.permissionRequest('s', { ...asked, policy: { version: 0, rule: 'default', ruleIndex: null } }, 'now', 'builtin');
    expect(builtin.policyDecision.matched_rule).toEqual({ source: 'tool_policy', action: 'ask', id: 'write_file', index: 0 });
  });
  it('mutation and declaredPaths have the keys of the spec example', () => {
    expect(Object.keys(p.mutation).sort()).toEqual(Object.keys(spec['mutation'] as object).sort());
    expect(p.mutation).toEqual({
      session_id: 's',
      run_id: 't1',
      worker_id: null,
      mutation_scope: 'apply_workspace',
      approval_policy: { require_approval: ['write_file'] },
    });
    expect(p.declaredPaths).toEqual(['src/a.txt']);
    expect(p.approvalRequest['evidence_refs']).toEqual([{ kind: 'workspace_path', ref: 'src/a.txt', metadata: { workspace_path: 'src/a.txt' } }]);
    expect(p._meta.harn).toEqual(expect.objectContaining({ mutation: p.mutation, declaredPaths: ['src/a.txt'] }));
    expect(v.permissionRequest(p)).toEqual([]);
  });
  it('a call without paths declares none', () => {
    expect(acp.permissionRequest('s', { ...asked, toolName: 'fetch', input: { url: 'https://x' } }, 'now').declaredPaths).toEqual([]);
  });
});

describe('item 10: granted with rewritten args', () => {
  it('carries the edited args as the decision input', () => {
    expect(acp.decodePermissionAnswer({ granted: true, args: { path: 'b.txt' } })).toEqual({ decision: 'approved', reason: null, input: { path: 'b.txt' } });
  });
  it('refuses args that are not an object instead of running the original call', () => {
    expect(acp.decodePermissionAnswer({ granted: true, args: ['b.txt'] })).toEqual({ decision: 'denied', reason: expect.stringContaining('refused') });
  });
  it('leaves the other answers as they were', () => {
    expect(acp.decodePermissionAnswer({ granted: true })).toEqual({ decision: 'approved', reason: null });
    expect(acp.decodePermissionAnswer({ granted: false, reason: 'no', args: { x: 1 } })).toEqual({ decision: 'denied', reason: 'no' });
  });
});

describe('item 13: live-session transitions as live_session_client updates', () => {
  const at = '2026-01-01T00:00:00Z';
  const facts: acp.LiveFact[] = [
    { type: 'AcpClientAttached', data: { clientId: 'tui', mode: 'controller', takeover: false, metadata: {}, at } },
    { type: 'AcpClientAttached', data: { clientId: 'portal', mode: 'observer', takeover: false, metadata: { surface: 'portal' }, at } },
    { type: 'AcpClientHeartbeat', data: { clientId: 'portal', metadata: {}, at } },
    { type: 'AcpControlTakenOver', data: { clientId: 'portal', previousControllerId: 'tui', at } },
    { type: 'AcpClientDetached', data: { clientId: 'tui', reason: 'client_exit', at } },
  ];
  it("emits Harn's shape, action and state (the method's response) for every transition", () => {
    let state = acp.emptyLiveState();
    const updates = facts.map((f, i) => {
      const r = acp.liveSessionUpdate(state, f, 's', i + 1);
      state = r.state;
      return r.notification?.params.update as {
        sessionUpdate: string;
        _meta: { harn: { action: string; state: { active_controller_id: string | null; reason?: string } } };
      };
    });
    expect(updates.map((u) => [u.sessionUpdate, u._meta.harn.action, u._meta.harn.state.active_controller_id])).toEqual([
      ['live_session_client', 'attached', 'tui'],
      ['live_session_client', 'attached', 'tui'],
      ['live_session_client', 'heartbeat', 'tui'],
      ['live_session_client', 'takeover', 'portal'],
      ['live_session_client', 'detached', 'portal'],
    ]);
    expect(updates[4]._meta.harn.state.reason).toBe('client_exit');
    for (const u of updates) expect(Object.keys(u).sort()).toEqual(['_meta', 'sessionUpdate']);
  });
  it('initialize advertises it, and how each extension is delivered', () => {
    const harn = acp.initializeResult({ version: '0', extensionMethods: [] }).agentCapabilities._meta.harn;
    expect(harn.sessionUpdateExtensions).toContain('live_session_client');
    expect(harn.sessionUpdateExtensionDelivery.byMethod['session/attach']).toEqual(['live_session_client']);
  });
});

describe('extension opt-in: a Harn method is its own opt-in for the updates it promises', () => {
  it('attach, inject and remind add their extensions; the rest stay opt-in', () => {
    let optIn = acp.extensionOptIn({});
    optIn = acp.optInAfter(optIn, 'session/attach');
    optIn = acp.optInAfter(optIn, 'session/inject');
    expect(['live_session_client', 'user_message'].every((k) => acp.acceptsUpdate(optIn, k))).toBe(true);
    expect(['reminder_emitted', 'progress', 'log', 'hitl_request', 'hitl_resolved'].some((k) => acp.acceptsUpdate(optIn, k))).toBe(false);
    expect(acp.optInAfter('all', 'session/remind')).toBe('all');
  });
});

describe('item 10: an approver’s edit is visible on the wire', () => {
  it('the resolved tool_call_update carries the edited args as rawInput and under _meta.harn.approval', () => {
    const by = { type: 'api_key' as const, id: 'k' };
    const r = acp.encode(
      rec({
        type: 'ApprovalResolved',
        data: { turnId: 't1', approvalId: 'a1', toolCallId: 'tc1', decision: 'approved', by, via: 'acp', reason: null, input: { path: 'b.txt' } },
      }),
      acp.initialAcpView(),
      's',
    );
    const update = r.notifications[0].params.update;
    expect(update).toEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        rawInput: { path: 'b.txt' },
        _meta: { harn: { approval: expect.objectContaining({ input: { path: 'b.txt' } }) } },
      }),
    );
    expect(v.check(r.notifications[0])).toEqual([]);
  });
});
