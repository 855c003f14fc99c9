import { continuationToken } from '@hub/protocol-openharness';
import { A2A_ROWS } from './roles-a2a';
import { AG_UI_ROWS } from './roles-ag-ui';
import { OpenEnvWs, TransportTestClient, hubJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';
import {
  cancelled,
  episodeOf,
  fresh,
  http,
  idle,
  moved,
  openharness,
  pending,
  transportCommand,
  transportSubmit,
  withAcp,
  zene,
  zeneOutcome,
} from './roles-clients';
import type { Row } from './roles-row';
import { acpOutcome, frameOutcome, httpOutcome, messageOutcome } from './roles-world';

export type { Ctx, Row } from './roles-row';

// Every action on every surface that has it, as that protocol's own client does it (the rows of
// roles-matrix.e2e.spec.ts). `prepare` sets up what the action needs, owned by whoever the row
// says; `act` is the one thing the role is judged on (what it appends is counted).

export const ACTIONS: Record<string, Record<string, Row>> = {
  read: {
    'HTTP session state': { prepare: idle, act: (w, who, c) => http(w, 'GET', `/v1/sessions/${c.session}/state`, w.keyOf(who)) },
    'HTTP session events': { prepare: idle, act: (w, who, c) => http(w, 'GET', `/v1/sessions/${c.session}/events`, w.keyOf(who)) },
    'HTTP session turns': {
      prepare: idle,
      async act(w, who, c) {
        // The turns read model is a projection: wait until an operator sees the session's turn.
        for (let i = 0; i < 100 && (await hubJson('GET', `${w.url}/v1/sessions/${c.session}/turns`, w.keys.operator)).status !== 200; i++)
          await new Promise((r) => setTimeout(r, 100));
        return http(w, 'GET', `/v1/sessions/${c.session}/turns`, w.keyOf(who));
      },
    },
    'HTTP session export': {
      prepare: idle,
      act: async (w, who, c) =>
        httpOutcome((await fetch(`${w.url}/v1/sessions/${c.session}/export`, { headers: { authorization: `Bearer ${w.keyOf(who)}` } })).status),
    },
    'HTTP sessions list': {
      prepare: idle,
      async act(w, who, c) {
        const listed = async (key: string) =>
          ((await hubJson('GET', `${w.url}/v1/sessions?limit=200`, key)).body['sessions'] as { sessionId: string }[]).some((s) => s.sessionId === c.session);
        for (let i = 0; i < 100 && !(await listed(w.keys.operator)); i++) await new Promise((r) => setTimeout(r, 100)); // the read model's lag
        return (await listed(w.keyOf(who))) ? 'ok' : 'not_found';
      },
    },
    'HTTP approvals list': {
      prepare: pending,
      async act(w, who, c) {
        const listed = async (key: string) =>
          JSON.stringify((await hubJson('GET', `${w.url}/v1/approvals?status=pending&limit=200`, key)).body).includes(String(c.approvalId));
        for (let i = 0; i < 100 && !(await listed(w.keys.operator)); i++) await new Promise((r) => setTimeout(r, 100)); // the read model's lag
        return (await listed(w.keyOf(who))) ? 'ok' : 'not_found';
      },
    },
    'HTTP approvals stream': {
      prepare: pending,
      async act(w, who, c) {
        // Every pending approval first, then `event: ready`: is this one among them?
        const seen = async (key: string) => {
          const res = await fetch(`${w.url}/v1/approvals/stream`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          let text = '';
          while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value);
          await reader.cancel();
          return text.includes(String(c.approvalId));
        };
        for (let i = 0; i < 100 && !(await seen(w.keys.operator)); i++) await new Promise((r) => setTimeout(r, 100));
        return (await seen(w.keyOf(who))) ? 'ok' : 'not_found';
      },
    },
    'HTTP sessions stream': {
      prepare: idle,
      async act(w, who, c) {
        // From the start of the log (?after=0) the feed's first read sends every session the key may see.
        const seen = async (key: string, waitMs: number) => {
          const res = await fetch(`${w.url}/v1/sessions/stream?after=0`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          const until = Date.now() + waitMs;
          let text = '';
          while (!text.includes(`"sessionId":"${c.session}"`) && Date.now() < until) {
            let timer: NodeJS.Timeout | undefined;
            const chunk = await Promise.race([
              reader.read(),
              new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), Math.max(0, until - Date.now())))),
            ]);
            clearTimeout(timer);
            if (chunk?.value) text += new TextDecoder().decode(chunk.value);
          }
          await reader.cancel();
          return text.includes(`"sessionId":"${c.session}"`);
        };
        for (let i = 0; i < 100 && !(await seen(w.keys.operator, 500)); i++) await new Promise((r) => setTimeout(r, 100)); // the read model's lag
        return (await seen(w.keyOf(who), 1000)) ? 'ok' : 'not_found';
      },
    },
    'OpenHarness collect': {
      prepare: idle,
      async act(w, who, c) {
        // A continuation token is not signed: anyone can mint one for a run whose ids they know.
        const requested = (await w.stack.events(w.tenantId, c.session)).find((e) => e.type === 'TurnRequested');
        const turnId = String((requested?.data as { turnId?: string } | undefined)?.turnId);
        return openharness(w, w.keyOf(who), {
          continuation: { run_id: turnId, continuation_token: continuationToken({ sessionId: c.session, turnId, delivered: 0 }) },
        });
      },
    },
    'transport socket': {
      prepare: idle,
      async act(w, who, c) {
        const t = await TransportTestClient.connect(w.url, w.keyOf(who), { session: c.session });
        await t.waitFor('snapshot or refusal', (x) => x.state !== null || x.errors().length > 0);
        await t.close();
        return t.errors().length ? frameOutcome(t.errors()[0].code) : (t.state?.messages.length ?? 0) > 0 ? 'ok' : 'an empty session';
      },
    },
    'ACP session/load': {
      prepare: idle,
      act: (w, who, c) => withAcp(w, w.keyOf(who), async (a) => (await a.request('session/load', { sessionId: c.session, cwd: '/', mcpServers: [] }), 'ok')),
    },
    'ACP session/resume': {
      prepare: idle,
      act: (w, who, c) => withAcp(w, w.keyOf(who), async (a) => (await a.request('session/resume', { sessionId: c.session, cwd: '/' }), 'ok')),
    },
    'ACP session/list': {
      prepare: idle,
      act: (w, who, c) =>
        withAcp(w, w.keyOf(who), async (a) =>
          (await a.request<{ sessions: { sessionId: string }[] }>('session/list', {})).sessions.some((s) => s.sessionId === c.session) ? 'ok' : 'not_found',
        ),
    },
    'OpenEnv trajectory': {
      prepare: (w, who) => episodeOf(w, w.ownerOf(who)),
      async act(w, who, c) {
        const res = await hubJson('GET', `${w.url}/v1/openenv/calc/trajectory?episode_id=${c.episodeId}`, w.keyOf(who));
        // OpenEnv answers an episode it does not have with 409 "no episode".
        return res.status === 409 && /no episode/.test(String(res.body['detail'])) ? 'not_found' : httpOutcome(res.status);
      },
    },
    'OpenEnv state': {
      prepare: (w, who) => episodeOf(w, w.ownerOf(who)),
      async act(w, who, c) {
        const res = await hubJson('GET', `${w.url}/v1/openenv/calc/state`, w.keyOf(who));
        return res.status !== 200
          ? httpOutcome(res.status)
          : res.body['episode_id'] === c.episodeId
            ? 'ok'
            : res.body['episode_id'] === null
              ? 'not_found'
              : `state ${JSON.stringify(res.body)}`;
      },
    },
    'OpenEnv /harness watch': {
      prepare: (w, who) => episodeOf(w, w.ownerOf(who)),
      async act(w, who, c) {
        const ws = await OpenEnvWs.open(w.url, `/v1/openenv/calc/harness?episode_id=${c.episodeId}`, w.keyOf(who));
        await ws.until('events or a refusal', () => ws.frames.length > 0 || ws.closeCode !== null);
        ws.close();
        const e = ws.frames.find((f) => f['type'] === 'error');
        return e ? messageOutcome(String(e['data']?.['message'])) : 'ok';
      },
    },
    'OpenEnv /harness replay': {
      prepare: (w, who) => episodeOf(w, w.ownerOf(who)),
      async act(w, who, c) {
        const ws = await OpenEnvWs.open(w.url, `/v1/openenv/calc/harness?episode_id=${c.episodeId}&replay=1&speed=100`, w.keyOf(who));
        await ws.until('the end of the replay or a refusal', () => ws.closeCode !== null);
        const e = ws.frames.find((f) => f['type'] === 'error');
        return e ? messageOutcome(String(e['data']?.['message'])) : ws.closeCode === 1000 ? 'ok' : `closed ${ws.closeCode}`;
      },
    },
  },

  'submit a turn in a new session': {
    transport: { prepare: fresh, act: (w, who, c) => transportSubmit(w, w.keyOf(who), c.session) },
    ACP: {
      act: (w, who) =>
        withAcp(w, w.keyOf(who), async (a) => {
          const s = await a.request<{ sessionId: string }>('session/new', { cwd: '/w', mcpServers: [] });
          await a.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
          return 'ok';
        }),
    },
    OpenHarness: { act: (w, who) => openharness(w, w.keyOf(who), { session_id: w.fresh('oh'), user_intent: 'hello' }) },
    Zene: { act: async (w, who) => zeneOutcome(await zene(w, w.keyOf(who), { request_id: w.fresh('z'), session_id: w.fresh('z'), prompt: 'hello' })) },
    'OpenEnv HTTP': {
      async act(w, who) {
        const reset = await http(w, 'POST', '/v1/openenv/calc/reset', w.keyOf(who), {});
        return reset !== 'ok' ? reset : http(w, 'POST', '/v1/openenv/calc/step', w.keyOf(who), { action: { message: 'hello' } });
      },
    },
    'OpenEnv /ws': {
      async act(w, who) {
        const ws = await OpenEnvWs.open(w.url, '/v1/openenv/calc/ws', w.keyOf(who));
        try {
          for (const frame of [
            { type: 'reset', data: {} },
            { type: 'step', data: { message: 'hello' } },
          ]) {
            const answer = await ws.ask(frame);
            if (answer['type'] === 'error') return messageOutcome(String(answer['data']?.['message']));
          }
          return 'ok';
        } finally {
          ws.close();
        }
      },
    },
    'OpenEnv /harness': {
      async act(w, who) {
        const ws = await OpenEnvWs.open(w.url, '/v1/openenv/calc/harness', w.keyOf(who));
        ws.ws.send('hello');
        await ws.until('the turn or a refusal', () => ws.frames.some((f) => f['type'] === 'error' || f['type'] === 'turn_complete') || ws.closeCode !== null);
        ws.close();
        const e = ws.frames.find((f) => f['type'] === 'error');
        return e ? messageOutcome(String(e['data']?.['message'])) : 'ok';
      },
    },
    'OpenEnv MCP tools/call': {
      act: (w, who) =>
        http(w, 'POST', '/v1/openenv/calc/mcp', w.keyOf(who), { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'none', arguments: {} } }),
    },
  },

  'submit a turn in an existing session': {
    transport: { prepare: idle, act: (w, who, c) => transportSubmit(w, w.keyOf(who), c.session) },
    'ACP session/prompt': {
      prepare: idle,
      act: (w, who, c) =>
        withAcp(w, w.keyOf(who), async (a) => (await a.request('session/prompt', { sessionId: c.session, prompt: [{ type: 'text', text: 'hello' }] }), 'ok')),
    },
    'ACP session/inject': {
      prepare: idle,
      act: (w, who, c) =>
        withAcp(
          w,
          w.keyOf(who),
          async (a) => (await a.request('session/inject', { sessionId: c.session, content: [{ type: 'text', text: 'hello' }], mode: 'queue' }), 'ok'),
        ),
    },
    OpenHarness: { prepare: idle, act: (w, who, c) => openharness(w, w.keyOf(who), { session_id: c.session, user_intent: 'hello' }) },
    Zene: {
      prepare: idle,
      act: async (w, who, c) => zeneOutcome(await zene(w, w.keyOf(who), { request_id: w.fresh('z'), session_id: c.session, prompt: 'hello' })),
    },
    'OpenEnv HTTP step': {
      prepare: (w, who) => episodeOf(w, w.ownerOf(who)),
      act: (w, who, c) => http(w, 'POST', '/v1/openenv/calc/step', w.keyOf(who), { action: { message: 'again' }, episode_id: c.episodeId }),
    },
  },

  'cancel a turn': {
    transport: { prepare: pending, act: (w, who, c) => transportCommand(w, w.keyOf(who), c.session, { type: 'cancel' }, cancelled(w, c)) },
    'ACP session/cancel': {
      prepare: pending,
      act: (w, who, c) => withAcp(w, w.keyOf(who), async (a) => (await a.request('session/cancel', { sessionId: c.session }), 'ok')),
    },
    Zene: {
      async prepare(w, who) {
        const session = w.fresh('zc');
        const requestId = w.fresh('zr');
        const run = zene(w, w.ownerOf(who), { request_id: requestId, session_id: session, prompt: 'write "x" to a.txt', timeout_ms: 60_000 }, '?mode=protocol');
        for (let i = 0; i < 800 && (await w.approvalStatus(session)) !== 'pending'; i++) await new Promise((r) => setTimeout(r, 25));
        return { session, approvalId: requestId, pending: run };
      },
      act: async (w, who, c) =>
        zeneOutcome(
          await zene(w, w.keyOf(who), { type: 'cancel', request_id: w.fresh('zx'), session_id: c.session, target_request_id: c.approvalId }, '?mode=protocol'),
        ),
    },
  },

  'answer an approval': {
    HTTP: {
      prepare: pending,
      act: (w, who, c) => http(w, 'POST', `/v1/sessions/${c.session}/approvals/${c.approvalId}`, w.keyOf(who), { decision: 'approved' }),
    },
    transport: {
      prepare: pending,
      act: (w, who, c) => transportCommand(w, w.keyOf(who), c.session, { type: 'approve', approvalId: c.approvalId }, moved(w, c)),
    },
    OpenHarness: {
      prepare: pending,
      act: (w, who, c) => openharness(w, w.keyOf(who), { session_id: c.session }, { approval: { decision: 'approved', approval_id: c.approvalId } }),
    },
    'ACP session/request_permission': {
      async prepare(w, who) {
        // The key's ACP client follows the session; then its owner asks for a write.
        const session = await w.idleSession(w.ownerOf(who));
        const acp = AcpSdkClient.ws(w.url, w.keyOf(who));
        await acp.request('initialize', { protocolVersion: 1 });
        const refused = await acp.request('session/resume', { sessionId: session, cwd: '/' }).then(() => undefined, acpOutcome);
        const approvalId = await w.raiseApproval(w.ownerOf(who), session);
        return { session, approvalId, acp, refused };
      },
      async act(w, _who, c) {
        try {
          if (c.refused) return c.refused;
          for (let i = 0; i < 30 && (c.acp?.permissionRequests.length ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 100));
          if (!c.acp?.permissionRequests.length) return 'forbidden'; // not asked: this key may not answer
          for (let i = 0; i < 400 && (await w.approvalStatus(c.session)) === 'pending'; i++) await new Promise((r) => setTimeout(r, 25));
          return (await w.approvalStatus(c.session)) === 'approved' ? 'ok' : 'asked, and the answer was refused';
        } finally {
          await c.acp?.close();
        }
      },
    },
  },

  'queue a reminder': {
    'ACP session/remind': {
      prepare: idle,
      act: (w, who, c) => withAcp(w, w.keyOf(who), async (a) => (await a.request('session/remind', { sessionId: c.session, body: 'be brief' }), 'ok')),
    },
  },

  fork: { HTTP: { prepare: idle, act: (w, who, c) => http(w, 'POST', `/v1/sessions/${c.session}/fork`, w.keyOf(who), {}) } },
  're-drive': { HTTP: { prepare: idle, act: (w, who, c) => http(w, 'POST', `/v1/sessions/${c.session}/redrive`, w.keyOf(who), {}) } },

  administer: {
    'keys (HTTP)': { act: (w, who) => http(w, 'POST', '/v1/admin/keys', w.keyOf(who), { name: w.fresh('k'), role: 'viewer' }) },
    'limits (HTTP)': { act: (w, who) => http(w, 'PUT', '/v1/admin/limits', w.keyOf(who), {}) },
    'OpenEnv environment': { act: (w, who) => http(w, 'PUT', '/v1/openenv/calc', w.keyOf(who), { description: 'arithmetic' }) },
    'erase a session (HTTP)': { prepare: idle, act: (w, who, c) => http(w, 'DELETE', `/v1/sessions/${c.session}`, w.keyOf(who)) },
  },
};

// A2A's rows (roles-a2a.ts), on the same actions.
for (const [action, rows] of Object.entries(A2A_ROWS)) Object.assign(ACTIONS[action], rows);
for (const [action, rows] of Object.entries(AG_UI_ROWS)) Object.assign(ACTIONS[action], rows);
