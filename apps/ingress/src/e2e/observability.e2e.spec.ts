import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HubStack, OpenEnvWs, TransportTestClient, freeListenPort } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';

// Issue 17: traces, metrics and logs of a real stack. An in-process OTLP/HTTP receiver takes the
// spans ingress and worker export; one turn with a tool call is one trace, continuing the client's
// traceparent, from the socket frame (or the HTTP request, or the ACP request) through the queue and
// the worker to the model, the tool and the appends; a failed turn's job span and a failed
// request's spans are ERROR with the domain code. Every metric of the list is served on
// /metrics (ingress) or the worker's health port, and the counters move across a turn. Every log
// line is JSON, and no line carries an API key.

jest.setTimeout(120_000);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2: SERVER. */
  kind?: number;
  status?: { code?: number; message?: string };
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

const spans: OtlpSpan[] = [];
let receiver: Server;
let stack: HubStack;
let tenant: { tenantId: string; apiKey: string; keyPrefix: string };
let healthPort: number;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && body.startsWith('{')) {
        const parsed = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
        for (const rs of parsed.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const otel = {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  healthPort = await freeListenPort();
  stack = await HubStack.start({
    label: 'otel',
    ingressEnv: { ...otel, LOG_LEVEL: 'info' },
    workerEnv: { ...otel, LOG_LEVEL: 'info', HUB_WORKER_HEALTH_PORT: String(healthPort) },
  });
  tenant = await stack.createTenant('otel');
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
});

async function turn(
  session: string,
  prompt: string,
  ended: (x: TransportTestClient) => boolean,
  headers: Record<string, string> = {},
): Promise<TransportTestClient> {
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session }, headers);
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor('the end of the turn', ended);
  return c;
}

const completed = (x: TransportTestClient) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete';
const failedWith = (code: string) => (x: TransportTestClient) => JSON.stringify(x.frames).includes(code);

async function waitForSpans(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`no ${what} among ${spans.length} spans: ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};

/** `span`'s ancestors, nearest first (spans of one trace, any process). */
function ancestorSpans(span: OtlpSpan): OtlpSpan[] {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
  const found: OtlpSpan[] = [];
  for (let p = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) found.push(p);
  return found;
}
const ancestors = (span: OtlpSpan) => ancestorSpans(span).map((s) => s.name);

/** A client's own span context, as it would send it: `traceparent` and the ids to look for. */
function clientTrace(): { traceId: string; spanId: string; headers: { traceparent: string } } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, headers: { traceparent: `00-${traceId}-${spanId}-01` } };
}

it("one turn is one trace, the client's: socket frame, command, queue, worker, model, tool, appends, queries", async () => {
  const client = clientTrace();
  const c = await turn('traced-1', 'calculate 6 * 7', completed, client.headers);
  await c.close();
  const toolSpan = () => spans.find((s) => s.name === 'tool call' && attr(s, 'hub.tool_name') === 'calculator');
  await waitForSpans('tool call span', () => toolSpan() !== undefined);
  const tool = toolSpan() as OtlpSpan;
  // The client's traceparent is honoured: its trace id, and its span is the root's parent.
  expect(tool.traceId).toBe(client.traceId);
  await waitForSpans('transport span of the same trace', () => spans.some((s) => s.traceId === tool.traceId && s.name === 'transport commands'));
  // Every span below is exported when it ends, each process in its own batches: the worker's job
  // span ends after the turn's last append, so it may come a batch later than the rest.
  const expected = ['transport commands', 'command', 'job runTurn', 'model call', 'tool call', 'append'];
  await waitForSpans('every span of the turn', () => expected.every((name) => spans.some((s) => s.traceId === tool.traceId && s.name === name)));
  const trace = spans.filter((s) => s.traceId === tool.traceId);
  expect(trace.find((s) => s.name === 'transport commands')?.parentSpanId).toBe(client.spanId);
  const names = new Set(trace.map((s) => s.name));
  for (const name of expected) expect(names).toContain(name);
  // BullMQ's producer and consumer spans, and the libraries' query spans, are in the same trace.
  expect([...names].some((n) => /turns/.test(n))).toBe(true);
  expect(trace.some((s) => /^pg\.|^(INSERT|SELECT|BEGIN|COMMIT)/.test(s.name))).toBe(true);
  // The chain: tool call → job runTurn → (the turns queue) → … → command (decided in ingress, ADR 0025) → transport commands.
  const chain = ancestors(tool);
  expect(chain).toContain('job runTurn');
  expect(chain).toContain('command');
  expect(chain[chain.length - 1]).toBe('transport commands');
  expect(chain.indexOf('job runTurn')).toBeLessThan(chain.indexOf('command'));
  expect(chain.slice(chain.indexOf('job runTurn') + 1, chain.indexOf('command')).some((n) => /turns/.test(n))).toBe(true);
  // The tool's result is appended under the turn's job, and the model was called there too.
  const model = trace.find((s) => s.name === 'model call') as OtlpSpan;
  expect(ancestors(model)).toContain('job runTurn');
  expect(trace.some((s) => s.name === 'append' && ancestors(s).includes('job runTurn'))).toBe(true);
  expect(attr(model, 'hub.model_provider')).toBe('offline');
  expect(Number(attr(model, 'gen_ai.usage.output_tokens'))).toBeGreaterThan(0);
  // One correlation id on every span of the trace: ours, the libraries' and BullMQ's.
  expect(new Set(trace.map((s) => attr(s, 'hub.correlation_id')))).toEqual(new Set([attr(tool, 'hub.correlation_id')]));
  expect(attr(tool, 'hub.correlation_id')).toEqual(expect.any(String));
});

it("an HTTP request's turn is under its server span, in the client's trace; so is an ACP request's and an OpenEnv /ws frame's", async () => {
  const client = clientTrace();
  const body = { protocol_version: '1.0.0', request_id: 'traced-oh', request: { context: { session_id: 'traced-oh', user_intent: 'calculate 2 * 21' } } };
  const headers = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json', 'x-correlation-id': 'corr-traced-oh', ...client.headers };
  const res = await fetch(`${stack.url}/v1/openharness`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  // Ingress and worker export on their own schedules: the worker's tool call may arrive before
  // ingress's server span (which ends only after the answer), so wait for both.
  const inClientTrace = (name: string) => spans.some((s) => s.traceId === client.traceId && s.name === name);
  await waitForSpans(
    'the HTTP turn',
    () => inClientTrace('tool call') && inClientTrace('command') && spans.some((s) => s.traceId === client.traceId && s.parentSpanId === client.spanId),
  );
  const server = spans.find((s) => s.traceId === client.traceId && s.parentSpanId === client.spanId) as OtlpSpan;
  expect(server).toEqual(expect.objectContaining({ kind: 2, name: expect.stringMatching(/^POST/) }));
  const command = spans.find((s) => s.traceId === client.traceId && s.name === 'command') as OtlpSpan;
  expect(ancestorSpans(command).at(-1)?.spanId).toBe(server.spanId);
  // The caller's correlation id on every span, from the server span on (Express's and Nest's too).
  const httpTrace = spans.filter((s) => s.traceId === client.traceId);
  expect(httpTrace.filter((s) => attr(s, 'hub.correlation_id') !== 'corr-traced-oh').map((s) => s.name)).toEqual([]);

  const acpClient = clientTrace();
  const acp = AcpSdkClient.ws(stack.url, tenant.apiKey, acpClient.headers);
  try {
    await acp.request('initialize', { protocolVersion: 1 });
    const { sessionId } = (await acp.request('session/new', { cwd: '/work', mcpServers: [] })) as { sessionId: string };
    await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'calculate 3 * 3' }] });
  } finally {
    await acp.close();
  }
  await waitForSpans(
    'the ACP turn',
    () =>
      spans.some((s) => s.traceId === acpClient.traceId && s.name === 'job runTurn') &&
      spans.some((s) => s.traceId === acpClient.traceId && s.parentSpanId === acpClient.spanId),
  );
  const runTurn = spans.find((s) => s.traceId === acpClient.traceId && s.name === 'job runTurn') as OtlpSpan;
  const root = ancestorSpans(runTurn).at(-1);
  expect(root).toEqual(expect.objectContaining({ name: 'acp request', parentSpanId: acpClient.spanId }));
  expect(attr(root as OtlpSpan, 'hub.method')).toBe('session/prompt');

  const envClient = clientTrace();
  const put = await fetch(`${stack.url}/v1/openenv/traced`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: '{"description":"traced"}',
  });
  expect(put.status).toBe(200);
  const env = await OpenEnvWs.open(stack.url, '/v1/openenv/traced/ws', tenant.apiKey, envClient.headers);
  await env.ask({ type: 'reset', data: {} });
  expect(await env.ask({ type: 'step', data: { message: 'calculate 2 * 5' } })).toMatchObject({ type: 'observation' });
  env.ws.close();
  await waitForSpans(
    'the OpenEnv turn',
    () =>
      spans.some((s) => s.traceId === envClient.traceId && s.name === 'job runTurn') &&
      spans.some((s) => s.traceId === envClient.traceId && s.parentSpanId === envClient.spanId),
  );
  const envTurn = spans.find((s) => s.traceId === envClient.traceId && s.name === 'job runTurn') as OtlpSpan;
  expect(ancestorSpans(envTurn).at(-1)).toEqual(expect.objectContaining({ name: 'openenv frame', parentSpanId: envClient.spanId }));
});

it("a failed request is ERROR with the domain code, on its server span, whatever the protocol's error shape; so is a refused socket command", async () => {
  const client = clientTrace();
  const res = await fetch(`${stack.url}/v1/sessions/nobody-here/state`, { headers: { authorization: `Bearer ${tenant.apiKey}`, ...client.headers } });
  expect(res.status).toBe(404);
  await waitForSpans('the refused request', () => spans.some((s) => s.traceId === client.traceId && s.kind === 2));
  const server = spans.find((s) => s.traceId === client.traceId && s.kind === 2) as OtlpSpan;
  expect(server.status?.code).toBe(2);
  expect(attr(server, 'hub.error_code')).toBe('SESSION_NOT_FOUND');
  // Refusals answered in a protocol's own shape (an OpenHarness error reply, a Zene refusal) too.
  for (const [path, body, code] of [
    ['/v1/openharness', { protocol_version: '1.0.0', request: {} }, 'invalid_request'],
    ['/v1/zene', { protocol_version: 1, type: 'run', request_id: 'z-bad', session_id: 's' }, 'INVALID_REQUEST'],
  ] as const) {
    const refusedHere = clientTrace();
    await fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json', ...refusedHere.headers },
      body: JSON.stringify(body),
    });
    await waitForSpans(`the refused ${path}`, () => spans.some((s) => s.traceId === refusedHere.traceId && s.kind === 2));
    const span = spans.find((s) => s.traceId === refusedHere.traceId && s.kind === 2) as OtlpSpan;
    expect([path, span.status?.code, attr(span, 'hub.error_code')]).toEqual([path, 2, code]);
  }

  const refused = clientTrace();
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'traced-1' }, refused.headers);
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'approve', approvalId: 'no-such-approval' }]);
  await c.waitFor('the refusal', (x) => x.frames.some((f) => f.type === 'error'));
  await c.close();
  await waitForSpans('the refused command', () => spans.some((s) => s.traceId === refused.traceId && s.name === 'transport commands'));
  const frame = spans.find((s) => s.traceId === refused.traceId && s.name === 'transport commands') as OtlpSpan;
  expect(frame.status?.code).toBe(2);
  expect(attr(frame, 'hub.error_code')).toEqual(expect.stringMatching(/^[A-Z_]+$/));
});

it("a failed turn's job span has status ERROR with the domain code", async () => {
  const c = await turn('traced-fail', 'hello and fail with auth', failedWith('PROVIDER_AUTH'));
  await c.close();
  await waitForSpans('failed runTurn span', () => spans.some((s) => s.name === 'job runTurn' && s.status?.code === 2));
  const failed = spans.find((s) => s.name === 'job runTurn' && s.status?.code === 2) as OtlpSpan;
  expect(attr(failed, 'hub.error_code')).toBe('PROVIDER_AUTH');
  expect(failed.status?.message).toContain('PROVIDER_AUTH');
});

/** The sum of a metric's samples whose labels include `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    const own = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => own[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
const has = (text: string, name: string) => new RegExp(`^${name}(\\{| )`, 'm').test(text);

it("/metrics on ingress and on the worker's health port: the issue's list, and the counters move across a turn", async () => {
  const scrape = async () => ({
    ingress: await (await fetch(`${stack.url}/metrics`)).text(),
    worker: await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text(),
  });
  const before = await scrape();
  // One turn that waits for an approval (scraped while it waits), then completes.
  const c = await turn('metered', 'write "x" to metered.txt', (x) => x.lastAssistant()?.toolCalls?.some((t) => t.approval?.status === 'pending') === true);
  await new Promise((r) => setTimeout(r, 1100));
  const waiting = await scrape();
  const approvalId = c.lastAssistant()?.toolCalls?.find((t) => t.approval?.status === 'pending')?.approval?.id as string;
  c.send([{ type: 'approve', approvalId }]);
  await c.waitFor('the answer', completed);
  await c.close();
  const after = await scrape();
  const all = `${after.ingress}\n${after.worker}`;

  // Counters and histogram counts that must have moved.
  const moved: Array<[keyof typeof after, string, Record<string, string>]> = [
    ['worker', 'hub_turns_started_total', { protocol: 'transport' }],
    ['worker', 'hub_turns_finished_total', { protocol: 'transport', outcome: 'completed' }],
    ['worker', 'hub_turn_duration_seconds_count', {}],
    ['worker', 'hub_turn_first_delta_seconds_count', {}],
    ['worker', 'hub_queue_wait_seconds_count', { queue: 'turns' }],
    ['worker', 'hub_model_tokens_total', { tenant: tenant.tenantId }],
    ['worker', 'hub_events_appended_total', {}],
    ['worker', 'hub_event_append_duration_seconds_count', {}],
    ['worker', 'hub_tool_calls_total', { tool: 'write_file' }],
    ['ingress', 'hub_commands_total', { command: 'SubmitTurn' }],
    ['ingress', 'hub_sockets_opened_total', { protocol: 'transport' }],
    ['ingress', 'hub_http_requests_total', {}],
  ];
  const still = moved.filter(([where, name, labels]) => !(sample(after[where], name, labels) > sample(before[where], name, labels)));
  expect(still.map(([where, name, labels]) => `${where} ${name} ${JSON.stringify(labels)}: ${sample(after[where], name, labels)}`)).toEqual([]);
  // A failed turn is counted with its domain code (the earlier test's PROVIDER_AUTH).
  expect(sample(after.worker, 'hub_turns_finished_total', { outcome: 'failed', code: 'PROVIDER_AUTH' })).toBeGreaterThanOrEqual(1);
  // Gauges read at scrape time: the approval waited, then it was answered.
  expect(sample(waiting.ingress, 'hub_approvals_pending')).toBeGreaterThanOrEqual(1);
  expect(sample(waiting.ingress, 'hub_approvals_oldest_pending_age_seconds')).toBeGreaterThan(0);
  // The answer reaches the read model within a projection lag.
  let settled = after.ingress;
  for (let i = 0; i < 20 && sample(settled, 'hub_approvals_pending') > 0; i++)
    settled = await new Promise((r) => setTimeout(r, 250)).then(async () => (await fetch(`${stack.url}/metrics`)).text());
  expect(sample(settled, 'hub_approvals_pending')).toBe(0);
  expect(sample(waiting.ingress, 'hub_sockets_open', { protocol: 'transport' })).toBeGreaterThanOrEqual(1);
  expect(sample(waiting.ingress, 'hub_sessions_active', { protocol: 'transport', status: 'awaiting_approval' })).toBeGreaterThanOrEqual(1);
  for (const name of ['hub_queue_jobs', 'hub_projection_lag_seconds', 'hub_projection_lag_events']) expect([name, has(all, name)]).toEqual([name, true]);
  expect(all).toMatch(/^hub_queue_jobs\{[^}]*queue="turns"/m);
  expect(all).toMatch(/^hub_projection_lag_seconds\{[^}]*projection="sessions"/m);
});

it('logs are JSON only, carry correlation and trace ids, log each request and socket, and never a key', async () => {
  // A bad key too: its refusal must not echo it.
  const bad = `${tenant.keyPrefix}_${'x'.repeat(43)}`;
  expect((await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: `Bearer ${bad}` } })).status).toBe(401);
  expect((await fetch(`${stack.url}/v1/sessions`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 200));
  const lines = [stack.ingress.stderr, ...stack.workers.map((w) => w.stderr)]
    .join('\n')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const parsed = lines.map((l) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      throw new Error(`a log line is not JSON: ${l.slice(0, 300)}`);
    }
  });
  expect(parsed.some((l) => l.msg === 'http request' && l.route === '/v1/sessions' && l.status === 200)).toBe(true);
  expect(parsed.some((l) => l.msg === 'socket opened' && l.protocol === 'transport')).toBe(true);
  expect(parsed.some((l) => l.msg === 'socket closed')).toBe(true);
  expect(parsed.some((l) => typeof l.correlation_id === 'string' && typeof l.trace_id === 'string')).toBe(true);
  expect(parsed.some((l) => typeof l.tenant_id === 'string' && typeof l.correlation_id === 'string')).toBe(true);
  const secretPart = tenant.apiKey.slice(tenant.keyPrefix.length);
  for (const l of lines) {
    expect(l).not.toContain(tenant.apiKey);
    expect(l).not.toContain(secretPart);
    expect(l).not.toContain('x'.repeat(43));
  }
});

it('serves the OpenAPI document and its browsable page without a key', async () => {
  const res = await fetch(`${stack.url}/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
  expect(doc.openapi).toMatch(/^3\./);
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/v1/sessions', '/v1/sessions/{id}/state', '/v1/approvals/stream', '/v1/openharness', '/health', '/metrics']),
  );
  const page = await fetch(`${stack.url}/docs`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('swagger');
});
