import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { HubProcess, HubStack, OpenEnvWs, TransportTestClient, type WireJson as Json } from '@hub/testing';
import { runHost } from '../zene/testing/spawn-host';

// Issue 11, defect 6: every bad input the abuse run found (nesting 10,000 deep, a 900 KB string,
// NUL, an unpaired surrogate) sent to every surface against real processes. Each must get that
// protocol's own validation error (never a 5xx, never "internal"), append nothing, and leave the
// process serving.

jest.setTimeout(180_000);

/** Raw JSON values, written by hand: JSON.stringify cannot make some of them. */
const BAD: [string, string][] = [
  ['nesting 10,000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
  ['a 900 KB string', `"${'x'.repeat(900 * 1024)}"`],
  ['NUL', '"a\\u0000b"'],
  ['a lone surrogate', '"a\\ud800b"'],
];

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  stack = await HubStack.start({ label: 'badin', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1' } });
  tenant = await stack.createTenant('abuser');
  const put = await http('PUT', '/v1/openenv/bad-env', JSON.stringify({ description: 'target', max_turns: 3 }));
  expect(put.status).toBe(200);
});
afterAll(async () => {
  for (const close of closers) await close();
  await stack?.stop();
});

async function http(method: string, path: string, body?: string): Promise<{ status: number; type: string; body: Json }> {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body,
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(text.trim().split('\n')[0]) as Json };
}

/** One raw frame on a socket, and the next frame back. */
function rawSocket(path: string): Promise<{ ask: (frame: string) => Promise<Json>; ws: WebSocket }> {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}${path}`, { headers: { Authorization: `Bearer ${tenant.apiKey}` } });
  const frames: Json[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    frames.push(JSON.parse(d.toString()) as Json);
    waiters.splice(0).forEach((w) => w());
  });
  closers.push(() => ws.close());
  const ask = async (frame: string): Promise<Json> => {
    const n = frames.length;
    ws.send(frame);
    const deadline = Date.now() + 20_000;
    while (frames.length <= n) {
      if (Date.now() > deadline || ws.readyState !== WebSocket.OPEN) throw new Error(`no answer on ${path} (socket state ${ws.readyState})`);
      await new Promise<void>((r) => (waiters.push(r), setTimeout(r, 100)));
    }
    return frames[n];
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ask, ws }));
    ws.once('error', reject);
  });
}

/** `bin/hub acp` over stdio: one line in, the next stdout line out. */
function acpStdio(): { ask: (line: string) => Promise<Json> } {
  const p = new HubProcess(['acp'], { HUB_URL: stack.url, HUB_API_KEY: tenant.apiKey });
  closers.push(() => p.kill());
  const { stdin, stdout } = p.child;
  if (!stdin || !stdout) throw new Error('bin/hub acp has no stdio pipes');
  const out: Json[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: stdout }).on('line', (l) => {
    out.push(JSON.parse(l) as Json);
    waiters.splice(0).forEach((w) => w());
  });
  return {
    ask: async (line) => {
      const n = out.length;
      stdin.write(`${line}\n`);
      const deadline = Date.now() + 20_000;
      while (out.length <= n) {
        if (Date.now() > deadline) throw new Error('no answer from bin/hub acp');
        await new Promise<void>((r) => (waiters.push(r), setTimeout(r, 100)));
      }
      return out[n];
    },
  };
}

/** Runs `fn` and checks that the log did not grow meanwhile (no turn runs in this file). */
async function appendsNothing<T>(fn: () => Promise<T>): Promise<T> {
  const n = await stack.countAllEvents();
  const r = await fn();
  expect(await stack.countAllEvents()).toBe(n);
  return r;
}

/** The field a refusal names: for nesting, the path goes on down into the nesting (cut short). */
const at = (path: string) => expect.stringMatching(new RegExp(`^${path.replace(/[$.[\]]/g, '\\$&')}($|\\[0\\])`));

const problemShape = (r: { status: number; type: string; body: Json }, path: string) => {
  expect([r.status, r.type]).toEqual([400, expect.stringMatching(/^application\/problem\+json/)]);
  expect(r.body).toEqual(expect.objectContaining({ status: 400, code: 'INVALID_INPUT', path: at(path) }));
};
const openEnv422 = (r: { status: number; body: Json }, path: string) => {
  expect(r.status).toBe(422);
  expect(r.body).toEqual({ detail: [expect.objectContaining({ type: 'value_error', loc: ['body', at(path)], msg: expect.any(String) })] });
};

describe.each(BAD)('%s', (_name, bad) => {
  it('HTTP: problem+json 400 naming the field', async () => {
    problemShape(await appendsNothing(() => http('POST', '/v1/sessions/s-bad/approvals/a-1', `{"decision":"approved","reason":${bad}}`)), '$.reason');
  });

  it('OpenHarness: the error object, invalid_request, naming the field', async () => {
    const r = await appendsNothing(() =>
      http(
        'POST',
        '/v1/openharness',
        `{"protocol_version":"1.0.0","request_id":"bad-1","correlation_id":"corr-bad-1","request":{"context":{"session_id":"oh-bad","user_intent":${bad}}}}`,
      ),
    );
    expect(r.status).toBe(400);
    expect(r.body.response).toEqual(
      expect.objectContaining({
        status: 'error',
        error: expect.objectContaining({ code: 'invalid_request', details: { field: at('request.context.user_intent') } }),
      }),
    );
    // Like every other OpenHarness error, the refusal echoes the ids (issue 27).
    expect([r.body.request_id, r.body.correlation_id]).toEqual(['bad-1', 'corr-bad-1']);
  });

  it('AG-UI: problem+json 400 naming the field, before any stream opens', async () => {
    const r = await appendsNothing(() =>
      http('POST', '/v1/ag-ui', `{"threadId":"ag-bad","runId":"r-bad","messages":[{"id":"u","role":"user","content":${bad}}],"tools":[],"context":[]}`),
    );
    problemShape(r, '$.messages[0].content');
  });

  it('OpenEnv HTTP: PUT (rubric), reset (episode_id) and step (unknown action field) answer 422', async () => {
    openEnv422(
      await appendsNothing(() => http('PUT', '/v1/openenv/bad-env', `{"description":"d","rubric":{"kind":"expected_answer","expected":${bad}}}`)),
      '$.rubric.expected',
    );
    openEnv422(await appendsNothing(() => http('POST', '/v1/openenv/bad-env/reset', `{"episode_id":${bad}}`)), '$.episode_id');
    openEnv422(await appendsNothing(() => http('POST', '/v1/openenv/bad-env/step', `{"action":{"message":"hi","extra":${bad}}}`)), '$.action.extra');
  });

  it('OpenEnv MCP: JSON-RPC -32600', async () => {
    const r = await http('POST', '/v1/openenv/bad-env/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${bad}}}`);
    expect([r.status, r.body.error?.code]).toEqual([200, -32600]);
  });

  it('OpenEnv /ws: VALIDATION_ERROR; /harness: an error HarnessEvent', async () => {
    const ws = await rawSocket('/v1/openenv/bad-env/ws');
    expect(await appendsNothing(() => ws.ask(`{"type":"step","data":{"message":${bad}}}`))).toEqual({
      type: 'error',
      data: { code: 'VALIDATION_ERROR', message: expect.stringContaining('$.data.message') },
    });
    const harness = await OpenEnvWs.open(stack.url, '/v1/openenv/bad-env/harness', tenant.apiKey);
    closers.push(() => harness.close());
    await harness.until('the stream', () => harness.frames.length > 0 || harness.closeCode !== null, 5_000).catch(() => undefined);
    const n = harness.frames.length;
    await appendsNothing(async () => {
      harness.ws.send(`{"message":${bad}}`);
      await harness.until('the refusal', () => harness.frames.slice(n).some((f) => f['type'] === 'error'));
    });
    expect(harness.frames.slice(n).find((f) => f['type'] === 'error')?.['data']).toEqual(
      expect.objectContaining({ message: expect.stringContaining('$.message') }),
    );
  });

  it('Transport WS: an error frame, invalid_message, naming the field', async () => {
    const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'tr-bad' });
    closers.push(() => c.close());
    await c.waitFor('snapshot', (x) => x.state !== null);
    await appendsNothing(async () => {
      c.sendRaw(`{"type":"commands","commands":[{"type":"submit","prompt":${bad}}]}`);
      await c.waitFor('the error', (x) => x.errors().length > 0);
    });
    expect(c.errors()[0]).toEqual(expect.objectContaining({ code: 'invalid_message', message: expect.stringContaining('$.commands[0].prompt') }));
  });

  it.each(['ws', 'stdio'] as const)('ACP over %s: JSON-RPC -32600 with the request id', async (kind) => {
    const line = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"acp-x","prompt":[{"type":"text","text":${bad}}]}}`;
    const client = kind === 'ws' ? await rawSocket('/v1/acp') : acpStdio();
    const reply = await appendsNothing(() => client.ask(line));
    expect(reply).toEqual({ jsonrpc: '2.0', id: 7, error: expect.objectContaining({ code: -32600, data: { path: at('$.params.prompt[0].text') } }) });
  });

  it('A2A: JSON-RPC -32600 naming the field', async () => {
    const r = await appendsNothing(() =>
      http(
        'POST',
        '/v1/a2a',
        `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":${bad}}]}}}`,
      ),
    );
    expect([r.status, r.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: expect.objectContaining({
        code: -32600,
        data: [expect.objectContaining({ reason: 'INVALID_REQUEST', metadata: { field: at('$.params.message.parts[0].text') } })],
      }),
    });
  });

  it('Zene HTTP and `hub host`: INVALID_REQUEST', async () => {
    const line = `{"protocol_version":1,"type":"run","request_id":"z-bad","session_id":"zb","prompt":${bad}}`;
    const r = await appendsNothing(() => http('POST', '/v1/zene', line));
    expect(r.status).toBe(400);
    expect(r.body).toEqual(expect.objectContaining({ ok: false, error_code: 'INVALID_REQUEST' }));
    const cli = await appendsNothing(() =>
      runHost({ hubUrl: stack.url, apiKey: tenant.apiKey, baseEnv: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' }, input: `${line}\n` }),
    );
    expect([cli.code, cli.first['error_code']]).toEqual([2, 'INVALID_REQUEST']);
    expect(String(cli.first['error_message'])).toMatch(/\$\.prompt/);
  });
});

describe('OpenHarness ids on a refusal of the generic input limits (issue 27)', () => {
  it('a 440 KB inline base64 attachment: invalid_request with request_id and correlation_id echoed; an id that itself breaks the rules is not', async () => {
    const blob = Buffer.alloc(330 * 1024, 7).toString('base64');
    const body = (ids: string) =>
      `{"protocol_version":"1.0.0",${ids},"request":{"context":{"session_id":"oh-blob","user_intent":"look","attachments":[{"filename":"a.bin","base64":"${blob}"}]}}}`;
    const r = await appendsNothing(() => http('POST', '/v1/openharness', body('"request_id":"blob-1","correlation_id":"corr-blob-1"')));
    expect(blob.length).toBeGreaterThan(440 * 1000);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(expect.objectContaining({ request_id: 'blob-1', correlation_id: 'corr-blob-1' }));
    expect(r.body.response?.error).toEqual(expect.objectContaining({ code: 'invalid_request', details: { field: 'request.context.attachments[0].base64' } }));
    const nul = await appendsNothing(() => http('POST', '/v1/openharness', body('"request_id":"blob\\u0000-2","correlation_id":"corr-blob-2"')));
    expect(nul.status).toBe(400);
    expect(nul.body.request_id).toBeUndefined();
    expect(nul.body.correlation_id).toBe('corr-blob-2');
  });
});

describe('AG-UI: a body that is not a RunAgentInput', () => {
  it.each([
    ['not JSON', '{"threadId":', 400, 'HTTP_400', undefined],
    ['no messages', '{"threadId":"ag-bad","runId":"r"}', 400, 'INVALID_INPUT', '$.messages'],
    ['a threadId the hub cannot use', '{"threadId":"a b","runId":"r","messages":[]}', 400, 'INVALID_INPUT', '$.threadId'],
    [
      'another major version',
      '{"threadId":"ag-bad","runId":"r","messages":[],"protocolVersion":"2.0"}',
      400,
      'UNSUPPORTED_PROTOCOL_VERSION',
      '$.protocolVersion',
    ],
    [
      'an image in the prompt',
      '{"threadId":"ag-bad","runId":"r","messages":[{"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://example.com/a.png"}}]}]}',
      422,
      'UNSUPPORTED_CONTENT',
      '$.messages[0].content[0]',
    ],
    ['a Last-Event-ID that is no cursor', '{"threadId":"ag-bad","runId":"r","messages":[]}', 400, 'INVALID_INPUT', '$header.last-event-id'],
  ])('%s: problem+json %s %s', async (name, body, status, code, path) => {
    const r = await appendsNothing(async () => {
      const res = await fetch(`${stack.url}/v1/ag-ui`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${tenant.apiKey}`,
          'Content-Type': 'application/json',
          ...(name.startsWith('a Last-Event-ID') ? { 'Last-Event-ID': 'abc' } : {}),
        },
        body,
      });
      return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Json };
    });
    expect([r.status, r.type]).toEqual([status, expect.stringMatching(/^application\/problem\+json/)]);
    expect(r.body).toEqual(expect.objectContaining({ code, status, ...(path ? { path } : {}) }));
  });
});

describe('query strings', () => {
  it('a limit that is not a positive integer, or NUL in a query value, is 400 problem+json', async () => {
    for (const q of ['limit=-1', 'limit=0', 'limit=abc', 'limit=%00']) {
      const r = await http('GET', `/v1/sessions?${q}`);
      expect([q, r.status, r.type]).toEqual([q, 400, expect.stringMatching(/^application\/problem\+json/)]);
    }
    problemShape(await http('GET', '/v1/sessions/s-1/events?after=%00'), '$query.after');
  });
});

describe('after the matrix', () => {
  it('every process still serves', async () => {
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
    const ok = await http('POST', '/v1/zene', '{"protocol_version":1,"type":"run","request_id":"z-ok","session_id":"zok","prompt":"hello"}');
    expect([ok.status, ok.body.ok]).toEqual([200, true]);
  });
});
