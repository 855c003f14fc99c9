import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import type { ActionDirective, ResponseMessage } from '@hub/protocol-openharness';
import { HubStack, TransportTestClient } from '@hub/testing';
import { AcpSdkClient, validators } from '../acp/testing/sdk-client';

// Issue 23: a tenant's approval policy, set over the admin API, decides each tool call in the
// worker; the call's events name the policy version and the rule; explain answers with the rule
// the worker then applies, for every row; an invalid policy is refused with the path to the bad
// field and nothing changes. One hub stack for the file.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'approval_policy', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '2' } });
  tenant = await stack.createTenant('policy');
});
afterAll(() => stack?.stop());

const call = (method: string, path: string, key: string, body?: unknown) =>
  fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const POLICY = {
  rules: [
    { id: 'tmp-writes', match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'tmp/**' }] }, outcome: 'allow' },
    {
      id: 'no-outside',
      description: 'nothing outside the workspace',
      match: { tool: '*_file', args: [{ kind: 'path', arg: 'path', outsideWorkspace: true }] },
      outcome: 'deny',
    },
    { id: 'no-rm-rf', match: { tool: 'write_file', args: [{ kind: 'regex', arg: 'content', pattern: 'rm\\s+-rf' }] }, outcome: 'deny' },
    { id: 'writes-ask', match: { tool: ['write_file', 'delete_file'] }, outcome: 'ask', approval: { deadline: { afterSeconds: 3600 } } },
  ],
  default: { outcome: 'builtin' },
};

type Ev = { type: string; data: Record<string, unknown> };

/** Submits `prompt` on a new session over the transport and waits until its tool call has settled (ran, refused, or waits for a person). */
async function runRow(session: string, prompt: string): Promise<{ c: TransportTestClient; events: Ev[] }> {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the tool call to settle', (x) => {
    const tc = x.lastAssistant()?.toolCalls?.[0];
    return tc !== undefined && ((x.state?.status === 'idle' && tc.status !== 'running') || tc.approval?.status === 'pending');
  });
  return { c, events: (await stack.events(tenant.tenantId, session)) as Ev[] };
}

async function explainOf(tool: string, input: unknown) {
  const res = await call('POST', '/v1/admin/policy/explain', tenant.apiKey, { tool, input });
  expect(res.status).toBe(200);
  return (await res.json()) as { version: number; outcome: string; rule: { id: string; index: number | null }; reason: string };
}

describe('an approval policy over the admin API', () => {
  it('refuses an invalid policy with the path to the bad field, and changes nothing', async () => {
    const bad = [
      [{ rules: [{ match: { tool: 'write_{file' }, outcome: 'allow' }] }, '$.rules[0].match.tool'],
      [{ rules: [{ match: { tool: 'x' }, outcome: 'ask', approval: { approvers: { roles: ['finance'] } } }] }, '$.rules[0].approval.approvers.roles[0]'],
      [
        {
          rules: [
            { match: {}, outcome: 'allow' },
            { match: { tool: 'y' }, outcome: 'deny' },
          ],
        },
        '$.rules[1]',
      ],
      [{ rules: [{ match: { args: [{ kind: 'regex', arg: 'content', pattern: '(' }] }, outcome: 'deny' }] }, '$.rules[0].match.args[0].pattern'],
    ] as const;
    for (const [policy, path] of bad) {
      const res = await call('PUT', '/v1/admin/policy', tenant.apiKey, policy);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(await res.json()).toEqual(
        expect.objectContaining({ code: 'INVALID_COMMAND', path, issues: expect.arrayContaining([expect.objectContaining({ at: path })]) }),
      );
    }
    const current = (await (await call('GET', '/v1/admin/policy', tenant.apiKey)).json()) as { version: number };
    expect(current.version).toBe(0);
    expect((await stack.streamEvents(tenant.tenantId, 'tenant-admin')).filter((e) => e.type === 'ApprovalPolicySet')).toEqual([]);
  });

  it('only an admin sets it; a viewer reads it; versions count up on the admin stream', async () => {
    const viewer = (await (await call('POST', '/v1/admin/keys', tenant.apiKey, { name: 'v', role: 'viewer' })).json()) as { apiKey: string };
    expect((await call('PUT', '/v1/admin/policy', viewer.apiKey, POLICY)).status).toBe(403);
    const set = await call('PUT', '/v1/admin/policy', tenant.apiKey, POLICY);
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual(expect.objectContaining({ version: 1, setBy: expect.objectContaining({ id: tenant.keyPrefix }) }));
    const read = (await (await call('GET', '/v1/admin/policy', viewer.apiKey)).json()) as { version: number; policy: { rules: unknown[] } };
    expect([read.version, read.policy.rules.length]).toEqual([1, 4]);
    // A change made from a stale read is refused.
    expect((await call('PUT', '/v1/admin/policy?expectedVersion=0', tenant.apiKey, POLICY)).status).toBe(409);
    const recorded = (await stack.streamEvents(tenant.tenantId, 'tenant-admin')).filter((e) => e.type === 'ApprovalPolicySet');
    expect(recorded.map((e) => e.data.version)).toEqual([1]);
  });
});

describe('the worker applies the rule that explain names, for each row', () => {
  // [session, prompt, tool, input as the model gives it, outcome, rule, how the call ends]
  const rows = [
    ['p-tmp', 'write "x" to tmp/a.txt', 'write_file', { path: 'tmp/a.txt', content: 'x' }, 'allow', 'tmp-writes', 'complete'],
    ['p-outside', 'use delete_file with {"path": "../../etc/passwd"}', 'delete_file', { path: '../../etc/passwd' }, 'deny', 'no-outside', 'denied'],
    ['p-rmrf', 'write "rm -rf /" to notes.txt', 'write_file', { path: 'notes.txt', content: 'rm -rf /' }, 'deny', 'no-rm-rf', 'denied'],
    ['p-ask', 'write "hi" to notes.txt', 'write_file', { path: 'notes.txt', content: 'hi' }, 'ask', 'writes-ask', 'pending'],
    ['p-read', 'read notes.txt', 'read_file', { path: 'notes.txt' }, 'allow', 'default', 'complete'],
  ] as const;

  it.each(rows)('%s: %s', async (session, prompt, tool, input, outcome, rule, ending) => {
    const explained = await explainOf(tool, input);
    expect([explained.version, explained.outcome, explained.rule.id]).toEqual([1, outcome, rule]);
    const { c, events } = await runRow(session, prompt);
    const started = events.find((e) => e.type === 'ToolCallStarted');
    expect(started?.data).toEqual(expect.objectContaining({ name: tool, input, policy: outcome, policyRule: expect.objectContaining({ version: 1, rule }) }));
    const done = events.find((e) => e.type === 'ToolCallCompleted');
    if (ending === 'pending') {
      expect(done).toBeUndefined();
      const asked = events.find((e) => e.type === 'ApprovalRequested');
      expect(asked?.data).toEqual(expect.objectContaining({ policy: { version: 1, rule, ruleIndex: 3 }, reason: expect.stringContaining(`by rule ${rule}`) }));
      // The transport shows the rule to whoever approves.
      expect(c.lastAssistant()?.toolCalls?.[0]?.approval?.reason).toContain(`rule ${rule}`);
    } else {
      expect(done?.data.status).toBe(ending);
      if (ending === 'denied') {
        expect(done?.data.output).toContain(`by rule ${rule}`);
        // The transport has no `denied` status: a refused call is an error there, and no approval was asked.
        expect(c.lastAssistant()?.toolCalls?.[0]).toEqual({ id: expect.any(String), name: tool, status: 'error' });
      }
    }
    await c.close();
  });
});

describe('hub policy (the CLI over the same API)', () => {
  it('explains like the API, and refuses a bad file with the path, changing nothing', async () => {
    const env = { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey };
    const explained = await stack.cli(['policy', 'explain', 'delete_file', '{"path": "/etc/passwd"}'], env);
    expect(explained.code).toBe(0);
    expect(JSON.parse(explained.stdout)).toEqual(expect.objectContaining({ version: 1, outcome: 'deny', rule: { index: 1, id: 'no-outside' } }));
    const file = join(mkdtempSync(join(tmpdir(), 'policy-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ rules: [{ match: { tool: 'a[' }, outcome: 'deny' }] }));
    const refused = await stack.cli(['policy', 'set', file], env);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('$.rules[0].match.tool')]);
    const shown = await stack.cli(['policy', 'show'], env);
    expect(JSON.parse(shown.stdout)).toEqual(expect.objectContaining({ version: 1 }));
  });
});

describe('quorum: distinct approvers, named by role, never the requester (ADR 0048)', () => {
  const QUORUM = {
    ...POLICY,
    rules: [
      {
        id: 'two-approvers',
        match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'q/**' }] },
        outcome: 'ask',
        approval: { required: 2, approvers: { roles: ['admin', 'approver'] }, requesterMayApprove: false },
      },
      {
        id: 'two-any',
        match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: 'r/**' }] },
        outcome: 'ask',
        approval: { required: 2, approvers: { roles: ['admin', 'approver'] }, requesterMayApprove: true },
      },
      ...POLICY.rules,
    ],
  };
  const keyOf = async (name: string, role: string) =>
    ((await (await call('POST', '/v1/admin/keys', tenant.apiKey, { name, role })).json()) as { apiKey: string }).apiKey;
  const answer = (key: string, session: string, approvalId: string, decision: 'approved' | 'denied') =>
    call('POST', `/v1/sessions/${session}/approvals/${approvalId}`, key, { decision });
  const codeOf = async (res: Response) => [res.status, ((await res.json()) as { code?: string }).code];
  type Inbox = { approvals: { approvalId: string; status: string; quorum: { required: number; approvals: number; votes: { by: { id: string } }[] } | null }[] };
  const inboxRow = async (approvalId: string, status: string, approvals: number) => {
    for (let i = 0; i < 200; i++) {
      const page = (await (await call('GET', `/v1/approvals?status=${status}`, tenant.apiKey)).json()) as Inbox;
      const row = page.approvals.find((a) => a.approvalId === approvalId);
      if (row && (row.quorum?.approvals ?? 0) >= approvals) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`approval ${approvalId} never showed ${approvals} approvals (${status})`);
  };

  it('one approval keeps the call waiting; the same key twice counts once; the requester and an operator are refused; a second approver runs it', async () => {
    expect((await call('PUT', '/v1/admin/policy', tenant.apiKey, QUORUM)).status).toBe(200);
    const [first, second, operator] = [await keyOf('first', 'approver'), await keyOf('second', 'approver'), await keyOf('op', 'operator')];
    const session = 'q-two';
    const { c, events } = await runRow(session, 'write "x" to q/a.txt');
    const asked = events.find((e) => e.type === 'ApprovalRequested');
    expect(asked?.data).toEqual(
      expect.objectContaining({
        policy: expect.objectContaining({ rule: 'two-approvers' }),
        quorum: { required: 2, approvers: { roles: ['admin', 'approver'] }, requesterMayApprove: false, requester: `api_key:${tenant.keyPrefix}` },
      }),
    );
    const approvalId = String(asked?.data.approvalId);
    // The requester (the admin key that submitted) may not approve their own call; an operator is not a named approver.
    expect(await codeOf(await answer(tenant.apiKey, session, approvalId, 'approved'))).toEqual([403, 'APPROVAL_REQUESTER_EXCLUDED']);
    expect(await codeOf(await answer(operator, session, approvalId, 'approved'))).toEqual([403, 'APPROVER_NOT_ALLOWED']);
    // The answer that does not yet decide says so, and how far the approval is.
    const one = await answer(first, session, approvalId, 'approved');
    expect([one.status, await one.json()]).toEqual([200, { approvalId, decision: 'approved', status: 'pending', approvals: 1, required: 2 }]);
    expect(await codeOf(await answer(first, session, approvalId, 'approved'))).toEqual([409, 'APPROVAL_ALREADY_VOTED']);
    const waiting = await inboxRow(approvalId, 'pending', 1);
    expect(waiting.quorum).toEqual(expect.objectContaining({ required: 2, approvals: 1 }));
    let log = (await stack.events(tenant.tenantId, session)) as Ev[];
    expect(log.filter((e) => e.type === 'ApprovalVoted').map((e) => [e.data.approvals, e.data.required])).toEqual([[1, 2]]);
    expect(log.some((e) => e.type === 'ApprovalResolved' || e.type === 'ToolCallCompleted')).toBe(false);
    const two = await answer(second, session, approvalId, 'approved');
    expect([two.status, await two.json()]).toEqual([200, { approvalId, decision: 'approved', status: 'approved' }]);
    await c.waitFor('the approved write to run', (x) => x.state?.status === 'idle');
    log = (await stack.events(tenant.tenantId, session)) as Ev[];
    expect(log.find((e) => e.type === 'ApprovalResolved')?.data.decision).toBe('approved');
    expect(log.find((e) => e.type === 'ToolCallCompleted')?.data.status).toBe('complete');
    const done = await inboxRow(approvalId, 'resolved', 2);
    expect(done.quorum?.votes).toHaveLength(2);
    await c.close();
  });

  /** The policy in force: what `matched_rule` and the OpenHarness extension name. */
  const policyVersion = async () => ((await (await call('GET', '/v1/admin/policy', tenant.apiKey)).json()) as { version: number }).version;
  const logOf = async (session: string) => (await stack.events(tenant.tenantId, session)) as (Ev & { metadata?: unknown })[];
  type Update = { sessionUpdate: string; status?: string; _meta?: { harn?: { approval?: Record<string, unknown> } } };

  describe('over ACP (the official SDK client on WS /v1/acp)', () => {
    const acp = { v: validators(), open: [] as AcpSdkClient[] };
    afterAll(() => Promise.all(acp.open.map((c) => c.close())));
    const opened = async (key: string) => {
      const c = AcpSdkClient.ws(stack.url, key);
      acp.open.push(c);
      await c.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await c.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] });
      return { c, sessionId };
    };
    const toolUpdates = (c: AcpSdkClient) => c.updates.map((u) => u.update as Update).filter((u) => u.sessionUpdate === 'tool_call_update');

    it('one approval keeps the prompt waiting (shown pending, 1 of 2); the same key again does not count; a second approver runs the tool', async () => {
      const [version, second] = [await policyVersion(), await keyOf('acp-second', 'approver')];
      const { c, sessionId } = await opened(tenant.apiKey);
      let ended = false;
      const prompt = c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "x" to r/acp.txt' }] });
      void prompt.then(
        () => (ended = true),
        () => undefined,
      );
      // The client (the requester, whom this rule lets approve) answers allow: one vote of two.
      await c.waitFor('the vote shown', () => toolUpdates(c).some((u) => u._meta?.harn?.approval?.['status'] === 'pending'));
      const asked = c.permissionRequests[0];
      expect(acp.v.permissionRequest(asked)).toEqual([]);
      expect(asked.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
      const harn = asked._meta?.['harn'] as { approvalId: string; approvalRequest: { approvers_required: number }; policyDecision: { matched_rule: unknown } };
      expect(harn.policyDecision.matched_rule).toEqual({ source: 'tenant_policy', action: 'ask', id: 'two-any', index: 1, policy_version: version });
      expect(harn.approvalRequest.approvers_required).toBe(2);
      const vote = toolUpdates(c).find((u) => u._meta?.harn?.approval?.['status'] === 'pending');
      expect(vote).toEqual(expect.objectContaining({ status: 'pending' }));
      expect(vote?._meta?.harn?.approval).toEqual(
        expect.objectContaining({ approvals: 1, required: 2, via: 'acp', by: expect.objectContaining({ id: tenant.keyPrefix }) }),
      );
      let log = await logOf(sessionId);
      expect(log.filter((e) => e.type === 'ApprovalVoted').map((e) => [e.data.approvals, e.data.via])).toEqual([[1, 'acp']]);
      expect(log.some((e) => e.type === 'ApprovalResolved' || e.type === 'ToolCallCompleted')).toBe(false);
      expect(toolUpdates(c).some((u) => u.status === 'completed')).toBe(false);
      expect(ended).toBe(false);
      // The same key again, from anywhere, is not a second approval.
      expect(await codeOf(await answer(tenant.apiKey, sessionId, harn.approvalId, 'approved'))).toEqual([409, 'APPROVAL_ALREADY_VOTED']);
      expect(c.permissionRequests).toHaveLength(1);
      expect(ended).toBe(false);
      const decided = await answer(second, sessionId, harn.approvalId, 'approved');
      expect(await decided.json()).toEqual(expect.objectContaining({ status: 'approved' }));
      expect((await prompt).stopReason).toBe('end_turn');
      expect(toolUpdates(c).map((u) => u.status)).toEqual(expect.arrayContaining(['pending', 'in_progress', 'completed']));
      log = await logOf(sessionId);
      expect(log.find((e) => e.type === 'ToolCallCompleted')?.data.status).toBe('complete');
      for (const u of c.updates) expect(acp.v.check({ jsonrpc: '2.0', method: 'session/update', params: u } as never)).toEqual([]);
    });

    it('the requester a rule excludes is offered only a refusal; an approval then a denial ends the call', async () => {
      const first = await keyOf('acp-first', 'approver');
      const { c, sessionId } = await opened(tenant.apiKey);
      // Holds its answer until an approver has approved, then refuses: a denial after a vote ends it.
      c.policy = async (p) => {
        const id = String((p._meta?.['harn'] as { approvalId: string }).approvalId);
        const voted = await answer(first, sessionId, id, 'approved');
        expect(await voted.json()).toEqual(expect.objectContaining({ status: 'pending', approvals: 1, required: 2 }));
        return { outcome: { outcome: 'selected', optionId: 'reject-once' } };
      };
      const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "x" to q/acp.txt' }] });
      expect(r.stopReason).toBe('end_turn');
      expect(c.permissionRequests[0].options.map((o) => o.kind)).toEqual(['reject_once']);
      expect((c.permissionRequests[0]._meta?.['harn'] as { policyDecision: { matched_rule: { id: string } } }).policyDecision.matched_rule.id).toBe(
        'two-approvers',
      );
      const log = await logOf(sessionId);
      expect(log.filter((e) => e.type === 'ApprovalVoted' || e.type === 'ApprovalResolved').map((e) => [e.type, e.data.decision, e.data.via])).toEqual([
        ['ApprovalVoted', 'approved', 'internal'],
        ['ApprovalResolved', 'denied', 'acp'],
      ]);
      expect(log.find((e) => e.type === 'ToolCallCompleted')?.data.status).toBe('denied');
      expect(toolUpdates(c).map((u) => u.status)).toEqual(expect.arrayContaining(['pending', 'failed']));
    });

    it('an approver’s edited arguments that a deny rule catches are refused; neither call runs', async () => {
      const { c, sessionId } = await opened(tenant.apiKey);
      // Harn's grant with rewritten args: the worker decides the edited call by the policy again.
      c.policy = async () => ({ granted: true, args: { path: 'notes.txt', content: 'rm -rf /' } }) as never;
      const r = await c.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write "hi" to notes.txt' }] });
      expect(r.stopReason).toBe('end_turn');
      const log = await logOf(sessionId);
      expect(log.find((e) => e.type === 'ApprovalRequested')?.data.policy).toEqual(expect.objectContaining({ rule: 'writes-ask' }));
      expect(log.find((e) => e.type === 'ApprovalResolved')?.data).toEqual(
        expect.objectContaining({ decision: 'approved', via: 'acp', input: { path: 'notes.txt', content: 'rm -rf /' } }),
      );
      const done = log.find((e) => e.type === 'ToolCallCompleted');
      expect([done?.data.status, done?.data.output]).toEqual(['denied', expect.stringContaining('by rule no-rm-rf')]);
    });
  });

  describe('over OpenHarness (POST /v1/openharness)', () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '../../../../../shared/fixtures/openharness/openharness-v1.draft.schema.json'), 'utf8')) as {
      $id: string;
    };
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schema);
    const post = async (body: unknown, key = tenant.apiKey) => {
      const res = await fetch(`${stack.url}/v1/openharness`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as ResponseMessage;
      const valid = ajv.getSchema(`${schema.$id}#/$defs/responseMessage`);
      if (!valid?.(json)) throw new Error(`not valid against the upstream schema: ${JSON.stringify(valid?.errors)}`);
      return { status: res.status, body: json };
    };
    const ask = (requestId: string, sessionId: string, intent: string) => ({
      protocol_version: '1.0.0',
      request_id: requestId,
      request: { context: { session_id: sessionId, user_intent: intent } },
    });
    const decide = (requestId: string, continuation: unknown, decision: 'approved' | 'denied') => ({
      protocol_version: '1.0.0',
      request_id: requestId,
      request: { context: { continuation }, extensions: { 'dev.harnesshub': { approval: { decision } } } },
    });
    const asks = (r: { body: ResponseMessage }) => (r.body.response.action_directives ?? []).filter((d) => d.action_type === 'request_approval');
    const hubExt = (d: ActionDirective | undefined) => (d?.extensions as Record<string, unknown> | undefined)?.['dev.harnesshub'];
    const text = (r: { body: ResponseMessage }) =>
      (r.body.response.action_directives ?? [])
        .filter((d) => d.action_type === 'render_message')
        .map((d) => String(d.payload?.['text']))
        .join('');

    it('the answer to the first approval still asks (1 of 2); the same key again is refused; a second approver runs it; a denial ends the next', async () => {
      const [version, second] = [await policyVersion(), await keyOf('oh-second', 'approver')];
      const started = await post(ask('oh-q-1', 'oh-quorum', 'write "x" to r/oh.txt'));
      const [asked] = asks(started);
      const cont = asked.payload?.['continuation'];
      expect(hubExt(asked)).toEqual({
        policy: { version, rule: 'two-any', rule_index: 1 },
        quorum: { required: 2, approvals: 0, requester_may_approve: true },
      });
      const voted = await post(decide('oh-q-2', cont, 'approved'));
      // Still waiting: the same approval asked again, now with one approval of two, and no result.
      expect(asks(voted).map((d) => [d.payload?.['approval_id'], hubExt(d)])).toEqual([
        [asked.payload?.['approval_id'], expect.objectContaining({ quorum: expect.objectContaining({ approvals: 1, required: 2 }) })],
      ]);
      expect(text(voted)).not.toMatch(/Done/);
      const again = await post(decide('oh-q-3', cont, 'approved'));
      expect([again.status, again.body.response.error?.details?.['hub_code']]).toEqual([400, 'APPROVAL_ALREADY_VOTED']);
      const done = await post(decide('oh-q-4', cont, 'approved'), second);
      expect(asks(done)).toEqual([]);
      expect(text(done)).toMatch(/^Done: wrote 1 bytes? to r\/oh\.txt/);
      expect((await logOf('oh-quorum')).filter((e) => e.type === 'ApprovalVoted' || e.type === 'ApprovalResolved').map((e) => [e.type, e.data.via])).toEqual([
        ['ApprovalVoted', 'openharness'],
        ['ApprovalResolved', 'openharness'],
      ]);

      const next = await post(ask('oh-q-5', 'oh-quorum', 'write "y" to r/oh2.txt'));
      const nextCont = asks(next)[0]?.payload?.['continuation'];
      expect(hubExt(asks(await post(decide('oh-q-6', nextCont, 'approved')))[0])).toEqual(
        expect.objectContaining({ quorum: expect.objectContaining({ approvals: 1 }) }),
      );
      const denied = await post(decide('oh-q-7', nextCont, 'denied'), second);
      expect(asks(denied)).toEqual([]);
      expect(text(denied)).toMatch(/denied/);
      const log = await logOf('oh-quorum');
      expect(log.filter((e) => e.type === 'ToolCallCompleted').map((e) => e.data.status)).toEqual(['complete', 'denied']);
    });
  });
});

describe('deadlines that deny, allow or escalate (ADR 0048)', () => {
  const ask = (id: string, dir: string, deadline: unknown) => ({
    id,
    match: { tool: 'write_file', args: [{ kind: 'path', arg: 'path', glob: `${dir}/**` }] },
    outcome: 'ask',
    approval: { deadline },
  });
  const DEADLINES = {
    ...POLICY,
    rules: [
      ask('expire-allow', 'ea', { afterSeconds: 1, onExpiry: 'allow' }),
      ask('expire-deny', 'ed', { afterSeconds: 1 }),
      ask('expire-escalate', 'ee', { afterSeconds: 3, onExpiry: { escalate: { approvers: { roles: ['admin'] }, required: 1 } } }),
      ...POLICY.rules,
    ],
  };
  /** Polls the session's log until `found` holds (no fixed waits: a deadline is due at its time, the poll sees it soon after). */
  const logUntil = async (session: string, what: string, found: (log: Ev[]) => boolean): Promise<Ev[]> => {
    for (let i = 0; i < 400; i++) {
      const log = (await stack.events(tenant.tenantId, session)) as Ev[];
      if (found(log)) return log;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${session}: never saw ${what}`);
  };
  const toolEnded = (status: string) => (log: Ev[]) => log.some((e) => e.type === 'ToolCallCompleted' && e.data.status === status);

  it('an unanswered approval is allowed or denied as its rule says, by the hub', async () => {
    expect((await call('PUT', '/v1/admin/policy', tenant.apiKey, DEADLINES)).status).toBe(200);
    const [allowed, denied] = await Promise.all([runRow('d-allow', 'write "x" to ea/a.txt'), runRow('d-deny', 'write "x" to ed/a.txt')]);
    expect(allowed.events.find((e) => e.type === 'ApprovalRequested')?.data).toEqual(expect.objectContaining({ onExpiry: 'allow' }));
    const [allowLog, denyLog] = await Promise.all([
      logUntil('d-allow', 'the write run', toolEnded('complete')),
      logUntil('d-deny', 'the write denied', toolEnded('denied')),
    ]);
    expect(allowLog.find((e) => e.type === 'ApprovalResolved')?.data).toEqual(
      expect.objectContaining({ decision: 'approved', by: { type: 'system', id: 'approval-deadline' } }),
    );
    expect(denyLog.find((e) => e.type === 'ApprovalResolved')?.data).toEqual(expect.objectContaining({ decision: 'denied' }));
    await Promise.all([allowed.c.close(), denied.c.close()]);
  });

  it('escalates to other approvers after the deadline, across a worker killed with -9, and only they may answer', async () => {
    const session = 'd-escalate';
    const { c, events } = await runRow(session, 'write "x" to ee/a.txt');
    const asked = events.find((e) => e.type === 'ApprovalRequested');
    // The deadline is a delayed job in Redis: the worker that scheduled it dies, a new one fires it.
    await stack.workers[0].kill('SIGKILL');
    await stack.addWorker();
    const log = await logUntil(session, 'the escalation', (l) =>
      l.some((e) => e.type === 'ApprovalRequested' && e.data.escalatedFrom === asked?.data.approvalId),
    );
    const escalated = log.filter((e) => e.type === 'ApprovalRequested')[1];
    expect(escalated.data).toEqual(
      expect.objectContaining({
        approvalId: `${String(asked?.data.approvalId)}.escalated`,
        quorum: expect.objectContaining({ required: 1, approvers: { roles: ['admin'] } }),
      }),
    );
    expect(log.some((e) => e.type === 'ApprovalResolved' || e.type === 'ToolCallCompleted')).toBe(false);
    const approver = ((await (await call('POST', '/v1/admin/keys', tenant.apiKey, { name: 'late', role: 'approver' })).json()) as { apiKey: string }).apiKey;
    const answer = (key: string, id: unknown) => call('POST', `/v1/sessions/${session}/approvals/${String(id)}`, key, { decision: 'approved' });
    expect((await answer(approver, escalated.data.approvalId)).status).toBe(403);
    expect((await answer(tenant.apiKey, asked?.data.approvalId)).status).toBe(409);
    expect((await answer(tenant.apiKey, escalated.data.approvalId)).status).toBe(200);
    await logUntil(session, 'the escalated write run', toolEnded('complete'));
    await c.close();
  });
});
