import WebSocket from 'ws';
import { OpenEnvWs, TransportTestClient, type WireJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';
import { runLine } from '../zene/testing/spawn-host';

// One attempt to start a turn (or open a session) on each surface, as that protocol's own client
// would, reduced to what a limits test compares: the refusal in the protocol's terms, the wait it
// names (seconds), and how many events the refused step appended (it must be none).

export interface Attempt {
  /** `ok`, or the protocol's own refusal, e.g. `error frame rate_limited`, `429 BUSY`. */
  refusal: string;
  /** The wait the refusal names, in seconds (Retry-After, or the protocol's field); null: none. */
  retryAfterS: number | null;
  /** Events appended by the step that was refused (or by the whole attempt when it was not). */
  appended: number;
}

export interface SurfaceContext {
  url: string;
  key: string;
  /** Events on session and environment streams (what a request may append). */
  count(): Promise<number>;
  /** A fresh id for sessions and requests. */
  fresh(what: string): string;
  /** The tenant's session a fork or re-drive starts from (idle, with one finished turn). */
  source: string;
}

const seconds = (ms: unknown) => (typeof ms === 'number' ? Math.ceil(ms / 1000) : null);
const header = (res: Response) => (res.headers.get('retry-after') === null ? null : Number(res.headers.get('retry-after')));
const post = (c: SurfaceContext, path: string, body: unknown, type = 'application/json') =>
  fetch(`${c.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': type },
    body: type === 'application/json' ? JSON.stringify(body) : String(body),
  });

/** Runs `steps` in order; the events counted are those of the step that was refused (or of all, when none was). */
async function stepwise(c: SurfaceContext, steps: (() => Promise<Omit<Attempt, 'appended'> | null>)[]): Promise<Attempt> {
  const first = await c.count();
  for (const step of steps) {
    const before = await c.count();
    const refused = await step();
    if (refused) return { ...refused, appended: (await c.count()) - before };
  }
  return { refusal: 'ok', retryAfterS: null, appended: (await c.count()) - first };
}

/** A session made from the source over HTTP (`redrive`, `fork`) under a fresh id: the problem's status and code, or ok. */
const fromSource = (route: 'redrive' | 'fork', idPrefix: string) => (c: SurfaceContext) =>
  stepwise(c, [
    async () => {
      const res = await post(c, `/v1/sessions/${c.source}/${route}`, { sessionId: c.fresh(idPrefix) });
      if (res.status < 300) return null;
      return { refusal: `${res.status} ${((await res.json()) as { code?: string }).code}`, retryAfterS: header(res) };
    },
  ]);

export const SURFACES: Record<string, (c: SurfaceContext) => Promise<Attempt>> = {
  transport: (c) =>
    stepwise(c, [
      async () => {
        const t = await TransportTestClient.connect(c.url, c.key, { session: c.fresh('t') });
        await t.waitFor('snapshot', (x) => x.state !== null);
        t.send([{ type: 'submit', prompt: 'hello' }]);
        await t.waitFor('an answer or a refusal', (x) => x.errors().length > 0 || (x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete'));
        await t.close();
        const e = t.errors()[0] as { code?: string; retryAfterMs?: number } | undefined;
        return e ? { refusal: `error frame ${e.code}`, retryAfterS: seconds(e.retryAfterMs) } : null;
      },
    ]),

  acp: async (c) => {
    const acp = AcpSdkClient.ws(c.url, c.key);
    const refusal = (e: unknown) => {
      const data = (e as { data?: { code?: string; retryAfterMs?: number } }).data;
      return { refusal: `JSON-RPC error ${data?.code ?? JSON.stringify(e)}`, retryAfterS: seconds(data?.retryAfterMs) };
    };
    let sessionId = '';
    try {
      await acp.request('initialize', { protocolVersion: 1 });
      return await stepwise(c, [
        () =>
          acp.request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] }).then((s) => {
            sessionId = s.sessionId;
            return null;
          }, refusal),
        () => acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] }).then(() => null, refusal),
      ]);
    } finally {
      await acp.close();
    }
  },

  openharness: (c) =>
    stepwise(c, [
      async () => {
        const id = c.fresh('oh');
        const res = await post(c, '/v1/openharness', {
          protocol_version: '1.0.0',
          request_id: id,
          request: { context: { session_id: id, user_intent: 'hello' } },
        });
        const body = (await res.json()) as { response?: { error?: { code?: string; retryable?: boolean; details?: { retry_after_ms?: number } } } };
        const error = body.response?.error;
        if (!error) return null;
        // The header and the body's details must agree.
        const inBody = seconds(error.details?.retry_after_ms);
        return {
          refusal: `${res.status} ${error.code}${error.retryable ? ' retryable' : ''}${inBody === header(res) ? '' : ` (body says ${inBody})`}`,
          retryAfterS: header(res),
        };
      },
    ]),

  zene: (c) =>
    stepwise(c, [
      async () => {
        const res = await post(c, '/v1/zene', runLine({ request_id: c.fresh('z'), session_id: c.fresh('z'), prompt: 'hello' }), 'application/x-ndjson');
        const body = (await res.json()) as { ok?: boolean; error_code?: string };
        return body.ok ? null : { refusal: `${res.status} ${body.error_code}`, retryAfterS: header(res) };
      },
    ]),

  openenv: (c) => {
    // One request: its status, its Retry-After and its body (the refusal was asked twice, once to read the headers).
    const call = (path: string, body: unknown) => async () => {
      const res = await post(c, `/v1/openenv/calc/${path}`, body);
      const answer = (await res.json()) as WireJson;
      if (res.status === 200) return null;
      return { refusal: `${res.status} ${typeof answer['detail'] === 'string' ? 'detail' : JSON.stringify(answer)}`, retryAfterS: header(res) };
    };
    return stepwise(c, [call('reset', {}), call('step', { action: { message: 'hello' } })]);
  },

  'openenv /ws': async (c) => {
    const ws = await OpenEnvWs.open(c.url, '/v1/openenv/calc/ws', c.key);
    const refused = (f: WireJson) =>
      f['type'] === 'error' ? { refusal: `error ${f['data']?.['code']}`, retryAfterS: seconds(f['data']?.['retry_after_ms']) } : null;
    try {
      return await stepwise(c, [
        async () => refused(await ws.ask({ type: 'reset', data: {} })),
        async () => refused(await ws.ask({ type: 'step', data: { message: 'hello' } })),
      ]);
    } finally {
      ws.close();
    }
  },

  'openenv /harness': async (c) => {
    let ws = null as OpenEnvWs | null;
    const refused = () => {
      const e = ws?.frames.find((f) => f['type'] === 'error');
      return e
        ? {
            refusal: `error event ${e['data']?.['code']}${e['data']?.['recoverable'] ? ' recoverable' : ''}`,
            retryAfterS: seconds(e['data']?.['retry_after_ms']),
          }
        : null;
    };
    try {
      return await stepwise(c, [
        async () => {
          const before = await c.count();
          ws = await OpenEnvWs.open(c.url, '/v1/openenv/calc/harness', c.key);
          // Opened: a new episode is in the log (it sends no frame until a turn); or refused: an error and a close.
          for (let i = 0; i < 300 && ws.frames.length === 0 && ws.closeCode === null && (await c.count()) === before; i++)
            await new Promise((r) => setTimeout(r, 50));
          await new Promise((r) => setTimeout(r, 200)); // the episode's last fact, or the close after the error
          return refused();
        },
        async () => {
          ws?.ws.send('hello');
          await ws?.until('the turn or a refusal', () => (ws?.frames ?? []).some((f) => f['type'] === 'error' || f['type'] === 'turn_complete'));
          return refused();
        },
      ]);
    } finally {
      ws?.close();
    }
  },

  a2a: (c) =>
    stepwise(c, [
      async () => {
        const res = await post(c, '/v1/a2a', {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: c.fresh('a2a'), role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
        });
        const body = (await res.json()) as { error?: { code: number; data?: { reason?: string; metadata?: { retryAfterMs?: string } }[] } };
        if (!body.error) return null;
        // The header and the error's ErrorInfo must agree.
        const info = body.error.data?.[0];
        const inBody = seconds(Number(info?.metadata?.retryAfterMs));
        return {
          refusal: `${res.status} ${body.error.code} ${info?.reason}${inBody === header(res) ? '' : ` (body says ${inBody})`}`,
          retryAfterS: header(res),
        };
      },
    ]),

  'ag-ui': (c) =>
    stepwise(c, [
      async () => {
        const threadId = c.fresh('agui');
        const res = await post(c, '/v1/ag-ui', {
          threadId,
          runId: c.fresh('run'),
          messages: [{ id: c.fresh('u'), role: 'user', content: 'hello' }],
          tools: [],
          context: [],
        });
        if (res.status === 200) {
          // The run's stream: read it to its end (the turn's).
          await res.text();
          return null;
        }
        const body = (await res.json()) as { code?: string };
        return {
          refusal: `${res.status} ${body.code}${res.headers.get('content-type')?.startsWith('application/problem+json') ? '' : ' (not problem+json)'}`,
          retryAfterS: header(res),
        };
      },
    ]),

  'HTTP re-drive': fromSource('redrive', 'rd'),
  'HTTP fork': fromSource('fork', 'fk'),
};

/** A WebSocket upgrade the hub refuses: its HTTP status, headers and body (or `open` when it was not refused). */
export function upgrade(
  url: string,
  path: string,
  key: string,
): Promise<{ status: number | 'open'; headers: Record<string, string | string[] | undefined>; body: string; ws?: WebSocket }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ status: 'open', headers: {}, body: '', ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('error', reject);
  });
}
