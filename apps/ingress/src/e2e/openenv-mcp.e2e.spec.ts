import {
  HubStack,
  OpenEnvWs,
  hubJson,
  openEnvFixture as fixture,
  startMcpHttpServer,
  testAllowEntry,
  testHarnessCommand,
  type WireJson as Json,
} from '@hub/testing';

// OpenEnv's MCP surface (issue #6) against real ingress and worker processes: `POST /mcp` and the
// `mcp` frame of `/ws` in upstream's JSON-RPC shapes, over an environment's real MCP servers (the
// stdio echo server and the streamable-HTTP one in tools/test-harnesses), and an agent turn that
// calls a tool only the HTTP server has.

jest.setTimeout(120_000);

const ECHO = testHarnessCommand('mcp-echo-server.ts');

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let httpServer: Awaited<ReturnType<typeof startMcpHttpServer>> | undefined;
let httpUrl: string;

beforeAll(async () => {
  httpServer = await startMcpHttpServer();
  httpUrl = httpServer.url;
  // The operator allows exactly the stdio test server (interpreter + script) and the HTTP one's URL.
  const allow = { HUB_MCP_STDIO_COMMANDS: testAllowEntry(ECHO), HUB_MCP_HTTP_URLS: httpUrl };
  stack = await HubStack.start({ label: 'openenv_mcp', workers: 1, workerEnv: { HUB_OFFLINE_DELAY_MS: '1', ...allow }, ingressEnv: allow });
  tenant = await stack.createTenant('trainer');
  const put = await http('PUT', 'tools', {
    mcp_servers: [
      { name: 'echo', transport: 'stdio', command: [...ECHO, 'a'], env: {} },
      { name: 'web', transport: 'http', url: httpUrl },
    ],
  });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
  await httpServer?.stop();
});

const http = (method: string, route: string, body?: unknown, apiKey = tenant.apiKey) => hubJson(method, `${stack.url}/v1/openenv/${route}`, apiKey, body);

/** One JSON-RPC request on `POST /mcp`; upstream answers every request with HTTP 200. */
async function rpc(body: unknown, env = 'tools'): Promise<Json> {
  const r = await http('POST', `${env}/mcp`, body);
  expect(r.status).toBe(200);
  return r.body;
}

const call = (name: string, args: unknown, id: number | string = 7) => ({ jsonrpc: '2.0', method: 'tools/call', params: { name, arguments: args }, id });

/** A `/ws` client, request/response as OpenEnv's client uses it. */
const openWs = (env: string) => OpenEnvWs.open(stack.url, `/v1/openenv/${env}/ws`, tenant.apiKey);

describe("POST /mcp and the /ws mcp frame serve the environment's MCP tools (upstream JSON-RPC shapes)", () => {
  it("tools/list over HTTP and over /ws, with no reset first: both servers' tools, env_ on a clash, never reset", async () => {
    const listed = await rpc(fixture('mcp/tools-list-request.json'));
    expect(listed).toMatchObject({ jsonrpc: '2.0', id: 100, result: { tools: expect.any(Array) } });
    expect(listed).not.toHaveProperty('error');
    const tools = listed['result']['tools'] as Json[];
    expect(tools.map((t) => t['name']).sort()).toEqual(['echo', 'env_calculator', 'open_sessions', 'reverse']);
    expect(tools.find((t) => t['name'] === 'reverse')).toEqual({
      name: 'reverse',
      description: 'Reverses the text',
      inputSchema: expect.objectContaining({ properties: { text: { type: 'string' } } }),
    });

    const ws = await openWs('tools');
    const frame = await ws.ask(fixture('ws/client-mcp-tools-list.json'));
    expect(frame).toEqual({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, result: listed['result'] } });
    ws.close();
  });

  it('tools/call runs a tool of either server and returns its MCP result', async () => {
    const reversed = await rpc(call('reverse', { text: 'stressed' }, 'r1'));
    expect(reversed).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      result: { content: [{ type: 'text', text: 'reversed: desserts' }], isError: false, data: 'reversed: desserts' },
    });
    expect((await rpc(call('env_calculator', { expression: '6*7' })))['result']['data']).toBe('mcp calculator: 6*7');

    const ws = await openWs('tools');
    const echoed = await ws.ask({ type: 'mcp', data: call('echo', { text: 'over ws' }, 2) });
    expect(echoed).toMatchObject({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo: over ws' }], isError: false } },
    });
    ws.close();
  });

  it('refuses orchestration names, unknown tools and bad params; unknown methods are -32601', async () => {
    for (const name of ['reset', 'step', 'state', 'close']) {
      const r = await rpc(call(name, {}));
      expect(r).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(new RegExp(`^Tool not found: ${name}`)) } });
    }
    // The built-in calculator is the harness's tool, not the environment's: only env_calculator is MCP.
    expect((await rpc(call('calculator', { expression: '1' })))['error']).toEqual({ code: -32602, message: 'Tool not found: calculator' });
    expect((await rpc(call('reverse', { text: 42 })))['error']).toMatchObject({ code: -32602, message: expect.stringMatching(/Input validation error/) });
    expect((await rpc({ jsonrpc: '2.0', method: 'tools/call', params: { arguments: {} }, id: 8 }))['error']).toEqual({
      code: -32602,
      message: "Missing 'name' in params",
    });
    expect((await rpc({ jsonrpc: '2.0', method: 'tools/list', params: [1], id: 9 }))['error']['code']).toBe(-32602);
    for (const method of ['tools/invalid', 'initialize', 'reset', 'step']) {
      expect(await rpc({ jsonrpc: '2.0', method, id: 10 })).toEqual({
        jsonrpc: '2.0',
        id: 10,
        error: { code: -32601, message: `Method not found: ${method}` },
      });
    }
    const ws = await openWs('tools');
    expect((await ws.ask({ type: 'mcp', data: { jsonrpc: '2.0', method: 'initialize', id: 3 } }))['data']['error']['code']).toBe(-32601);
    expect((await ws.ask({ type: 'mcp', data: call('reset', {}, 4) }))['data']).toMatchObject({ id: 4, error: { code: -32602 } });
    ws.close();
  });

  it('answers malformed JSON with -32700 and a malformed request with -32600', async () => {
    expect(await rpc('{"jsonrpc": "2.0", ')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect((await rpc({ jsonrpc: '1.0', method: 'tools/list', id: 1 }))['error']['code']).toBe(-32600);
    expect((await rpc({ jsonrpc: '2.0', id: 1 }))['error']['code']).toBe(-32600);
    expect((await rpc([{ jsonrpc: '2.0', method: 'tools/list', id: 1 }]))['error']['code']).toBe(-32600);
    const ws = await openWs('tools');
    expect(await ws.ask({ type: 'mcp', data: { method: 'tools/list', id: 5 } })).toMatchObject({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 5, error: { code: -32600 } },
    });
    ws.close();
  });

  it("answers OpenEnv's client session methods, and an environment without MCP servers as upstream does", async () => {
    const created = await rpc({ jsonrpc: '2.0', method: 'openenv/session/create', params: {}, id: 1 });
    expect(created['result']['session_id']).toEqual(expect.any(String));
    const listed = await rpc({ jsonrpc: '2.0', method: 'tools/list', params: { session_id: created['result']['session_id'] }, id: 2 });
    expect(listed['result']['tools']).toHaveLength(4);
    expect((await rpc({ jsonrpc: '2.0', method: 'openenv/session/close', params: { session_id: created['result']['session_id'] }, id: 3 }))['result']).toEqual({
      session_id: created['result']['session_id'],
      closed: true,
    });
    expect((await http('PUT', 'plain', {})).status).toBe(200);
    expect((await rpc({ jsonrpc: '2.0', method: 'tools/list', id: 4 }, 'plain'))['error']).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/does not support MCP/),
    });
  });

  it("serves only the key's tenant's environment", async () => {
    const other = await stack.createTenant('other');
    expect((await http('POST', 'tools/mcp', fixture('mcp/tools-list-request.json'), other.apiKey)).status).toBe(404);
    expect((await http('POST', 'tools/mcp', fixture('mcp/tools-list-request.json'), 'wrong-key')).status).toBe(401);
    expect((await http('POST', 'nope/mcp', fixture('mcp/tools-list-request.json'))).status).toBe(404);
  });
});

describe("the agent uses a tool of the environment's streamable-HTTP MCP server", () => {
  it("a step calls `reverse` (only the HTTP server has it) end to end; a trainer's /mcp call adds no turn events", async () => {
    expect((await http('POST', 'tools/reset', { episode_id: 'mcp-http' })).status).toBe(200);
    const s1 = await http('POST', 'tools/step', { action: { message: 'use reverse with {"text": "stressed"}' }, timeout_s: 90 });
    expect(s1.body).toMatchObject({ observation: { status: 'completed' } });
    expect(s1.body['observation']['response']).toContain('reversed: desserts');
    const events = s1.body['observation']['turn_events'] as Json[];
    expect(events.find((e) => e['type'] === 'tool_call')?.['data']).toMatchObject({
      tool_name: 'reverse',
      executor: 'mcp:web',
      arguments: { text: 'stressed' },
    });
    expect(events.find((e) => e['type'] === 'tool_result')?.['data']).toMatchObject({ result: 'reversed: desserts' });

    const state = (await http('GET', 'tools/state')).body;
    const before = await stack.events(tenant.tenantId, state['session_id'] as string);
    expect((await rpc(call('reverse', { text: 'direct' })))['result']['data']).toBe('reversed: tcerid');
    const after = await stack.events(tenant.tenantId, state['session_id'] as string);
    expect(after.map((e) => e.type)).toEqual(before.map((e) => e.type));
    expect((await http('GET', 'tools/state')).body).toMatchObject({ episode_id: 'mcp-http', step_count: 1 });
  });
});
