import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MAX_WAIT_MS } from './capabilities';
import { continuationToken } from './continuation';
import { decode, type DecodedRequest } from './decode';

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, 'fixtures/requests', name), 'utf8')) as Record<string, unknown>;
const ctx = { tenantId: 'tenant-1', newId: () => 'generated-1' };
const ok = (body: unknown): DecodedRequest => {
  const r = decode(body, ctx);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.request;
};
const errorOf = (body: unknown) => {
  const r = decode(body, ctx);
  return r.ok ? null : r.error;
};
const submit = (context: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  protocol_version: '1.0.0',
  request_id: 'r1',
  ...extra,
  request: { context },
});

describe('decode: a new turn', () => {
  const decoded = ok(fixture('submit--secret-environment.json'));
  const command = decoded.action.kind === 'submit' ? decoded.action.command : null;

  it('names the session by session_id:conversation_id and derives the ids from request_id', () => {
    expect(decoded.sessionId).toBe('sess_kiosk:tab-2');
    expect(command?.turnId).toBe('oh-req_secret_001');
    expect(decoded.commandId).toBe('openharness:sess_kiosk:tab-2:req_secret_001');
    expect(decoded.idempotent).toBe(true);
    expect(decoded.echo).toEqual({ request_id: 'req_secret_001', correlation_id: 'corr_secret_001' });
  });

  it('keeps task_hint, shell and attachments as turn context, unknown keys inside them included', () => {
    expect(command?.context).toEqual(
      expect.objectContaining({
        task_hint: { plugin_id: 'calc', 'com.example.lane': 'fast' },
        shell: { shell_kind: 'com.example.kiosk', locale: 'en-US', unknown_shell_field: true },
        attachments: [{ uri: 'https://files.example.com/a/1', mime_type: 'image/png', size_bytes: 1024 }],
        conversation_id: 'tab-2',
      }),
    );
    expect(command?.busyPolicy).toBe('reject');
  });

  it('withholds secret environment state from everything it produces', () => {
    expect(command?.context['environment_state']).toEqual({ privacy_tier: 'secret', withheld: true });
    expect(JSON.stringify(decoded)).not.toContain('sk-live-DO-NOT-LEAK');
    expect(JSON.stringify(decoded)).not.toContain('Banking');
    expect(decoded.logFields['environment']).toEqual({ privacy_tier: 'secret' });
  });

  it('never carries auth anywhere', () => {
    expect(JSON.stringify(decoded)).not.toContain('cred_opaque');
  });

  it('keeps extensions as event metadata, and caps the wait budget', () => {
    expect(decoded.metadata).toEqual({
      openharness: {
        requestId: 'req_secret_001',
        extensions: { 'dev.harnesshub': { wait_ms: 999999, busy_policy: 'reject', a_future_key: 1 }, 'com.example': { trace: 'x-1' } },
      },
    });
    expect(decoded.waitMs).toBe(MAX_WAIT_MS);
  });

  it('denies every asked capability it does not honour, with a code', () => {
    expect(decoded.capabilities.capability_denials).toEqual([
      expect.objectContaining({ capability: 'openharness.streaming', code: 'not_supported' }),
      expect.objectContaining({ capability: 'com.example.hologram', code: 'unknown_capability' }),
    ]);
    expect(decoded.capabilities.supported_capabilities['openharness.ui.approval']).toBe(true);
  });
});

describe('decode: privacy tiers', () => {
  it('keeps restricted state for the turn but logs only its key names', () => {
    const d = ok(submit({ user_intent: 'hi', environment_state: { privacy_tier: 'restricted', active_window: 'Mail: Dr. Who' } }));
    expect(d.action.kind === 'submit' && d.action.command.context['environment_state']).toEqual({ privacy_tier: 'restricted', active_window: 'Mail: Dr. Who' });
    expect(d.logFields['environment']).toEqual({ privacy_tier: 'restricted', keys: ['active_window'] });
    expect(JSON.stringify(d.logFields)).not.toContain('Dr. Who');
  });

  it('treats a tier it does not know as secret', () => {
    const d = ok(submit({ user_intent: 'hi', environment_state: { privacy_tier: 'top-secret', pin: '1234' } }));
    expect(JSON.stringify(d)).not.toContain('1234');
  });
});

describe('decode: defaults and ids', () => {
  it('without request_id or session_id: a generated id, a one-off session, not idempotent', () => {
    const d = ok({ protocol_version: '1.0.0', request: { context: { user_intent: 'hi' } } });
    expect([d.requestId, d.sessionId, d.idempotent, d.echo]).toEqual(['generated-1', 'oh-generated-1', false, {}]);
  });

  it('serves any 1.x minor and patch', () => {
    expect(ok(submit({ user_intent: 'hi' }, { protocol_version: '1.99.3-beta.1' })).action.kind).toBe('submit');
  });

  it('keeps another engine’s continuation as opaque context of a new turn', () => {
    const d = ok(submit({ user_intent: 'go on', continuation: { run_id: 'run_7d2', continuation_token: 'ctok_aq9' } }));
    expect(d.action.kind === 'submit' && d.action.command.context['continuation']).toEqual({ run_id: 'run_7d2', continuation_token: 'ctok_aq9' });
  });

  it('refuses an attachment holding a long string', () => {
    expect(errorOf(submit({ user_intent: 'hi', attachments: [{ ref_id: 'a', note: 'x'.repeat(5000) }] }))?.code).toBe('invalid_request');
    expect(ok(submit({ user_intent: 'hi', attachments: [{ ref_id: 'a', note: 'x'.repeat(100) }] })).action.kind).toBe('submit');
  });

  it('accepts a tenant_id that is the key’s own', () => {
    expect(ok({ ...submit({ user_intent: 'hi' }), request: { auth: { tenant_id: 'tenant-1' }, context: { user_intent: 'hi' } } }).action.kind).toBe('submit');
  });
});

describe('decode: continuations', () => {
  const approvalToken = continuationToken({ sessionId: 's1', turnId: 'oh-r0', approvalId: 'ap1', delivered: 12 });
  const decision = (approval: Record<string, unknown>) => ({ extensions: { 'dev.harnesshub': { approval } } });

  it('a continuation with a decision resolves that approval and remembers what was delivered', () => {
    const body = {
      protocol_version: '1.0.0',
      request_id: 'r2',
      request: { context: { continuation: { continuation_token: approvalToken } }, ...decision({ decision: 'denied', reason: 'no' }) },
    };
    const d = ok(body);
    expect(d.sessionId).toBe('s1');
    expect(d.action).toEqual({
      kind: 'resolve',
      command: { type: 'ResolveApproval', sessionId: 's1', approvalId: 'ap1', decision: 'denied', reason: 'no' },
      turnId: 'oh-r0',
      delivered: 12,
    });
  });

  it('a continuation without a decision collects the rest of the turn', () => {
    const d = ok({ protocol_version: '1.0.0', request: { context: { session_id: 's1', continuation: { continuation_token: approvalToken } } } });
    expect(d.action).toEqual({ kind: 'collect', turnId: 'oh-r0', delivered: 12 });
  });

  it('refuses a continuation presented for another session, or for another approval', () => {
    expect(errorOf({ protocol_version: '1.0.0', request: { context: { session_id: 's2', continuation: { continuation_token: approvalToken } } } })?.code).toBe(
      'invalid_request',
    );
    const other = {
      protocol_version: '1.0.0',
      request: { context: { continuation: { continuation_token: approvalToken } }, ...decision({ decision: 'approved', approval_id: 'ap2' }) },
    };
    expect(errorOf(other)?.details).toEqual({ field: 'request.extensions.dev.harnesshub.approval' });
  });
});
