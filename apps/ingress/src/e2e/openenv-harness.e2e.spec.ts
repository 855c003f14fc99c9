import { readFileSync, readdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { HubStack, hubJson, testAllowEntry, testHarnessCommand, type WireJson as Json } from '@hub/testing';

// OpenEnv environments whose turns run on a wrapped external harness (RFC 005, issue #6): kind
// `acp` runs tools/test-harnesses/acp-test-agent.ts (the official ACP SDK's agent side) and kind
// `command` runs tools/test-harnesses/command-test-agent.ts (one JSON line per turn), as real
// processes on a real worker. Steps keep the harness's context, a permission the agent asks is
// answered over HTTP, a crash fails the step with an error event, and reset stops the process.
// An environment's MCP servers reach the wrapped agent: the ACP agent calls the injected `echo`
// itself (a real stdio MCP server it spawns), and the call shows in the observation and the log.

jest.setTimeout(120_000);

// A marker argument per run: finds this file's harness processes among all others on the host.
const MARKER = `e2e-${randomUUID()}`;
const agent = (file: string) => testHarnessCommand(file);
const harness = (kind: 'acp' | 'command', file: string) => ({
  name: `${kind}-test`,
  kind,
  command: [...agent(file), MARKER],
  env_vars: {},
  startup_timeout_s: 60,
  session_timeout_s: 90,
});

// The injected MCP server, with the run's marker: it must not outlive its harness either.
const ECHO_SERVER = { name: 'echo', transport: 'stdio', command: [...agent('mcp-echo-server.ts'), MARKER], env: {} };

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  // The operator allows exactly the two test agents (interpreter + script) as harness commands,
  // and the echo server as a stdio MCP server.
  const allow = {
    HUB_HARNESS_COMMANDS: [agent('acp-test-agent.ts'), agent('command-test-agent.ts')].map((c) => testAllowEntry(c)).join(';'),
    HUB_MCP_STDIO_COMMANDS: testAllowEntry(agent('mcp-echo-server.ts')),
  };
  stack = await HubStack.start({ label: 'openenv_harness', workers: 1, workerEnv: allow, ingressEnv: allow });
  tenant = await stack.createTenant('harness-trainer');
});
afterAll(async () => {
  await stack?.stop();
  // Killed with the worker, each harness sees its stdin close and exits: none is left behind.
  await until('harness processes to exit', () => harnessPids().length === 0, 15_000);
});

const http = (method: string, route: string, body?: unknown) => hubJson(method, `${stack.url}/${route}`, tenant.apiKey, body);
const step = (env: string, message: string) => http('POST', `v1/openenv/${env}/step`, { action: { message }, timeout_s: 90 });

async function until(what: string, pred: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Pids of live processes started with this run's marker argument. */
function harnessPids(): number[] {
  return readdirSync('/proc').flatMap((d) => {
    if (!/^\d+$/.test(d)) return [];
    try {
      return readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(MARKER) ? [Number(d)] : [];
    } catch {
      return []; // the process ended while we looked
    }
  });
}

const eventTypes = (obs: Json) => (obs['observation']['turn_events'] as Json[]).map((e) => e['type'] as string);

it('refuses a harness command that is not on the allowlist, and a harness with no command', async () => {
  const bad = await http('PUT', 'v1/openenv/evil', { harness: { name: 'evil', kind: 'acp', command: ['/bin/sh', '-c', 'echo hi'] } });
  expect(bad.status).toBe(422);
  expect(JSON.stringify(bad.body)).toMatch(/not allowed on this hub/);
  const none = await http('PUT', 'v1/openenv/evil', { harness: { name: 'evil', kind: 'command' } });
  expect(none.status).toBe(422);
});

it('kind acp: steps keep context, a permission is answered over HTTP, a crash fails the step, reset starts over', async () => {
  expect((await http('PUT', 'v1/openenv/acp-env', { harness: harness('acp', 'acp-test-agent.ts') })).status).toBe(200);
  expect((await http('POST', 'v1/openenv/acp-env/reset', {})).status).toBe(200);

  const s1 = await step('acp-env', 'hello');
  expect(s1.status).toBe(200);
  expect(s1.body['observation']).toMatchObject({ status: 'completed', response: 'turn 1; you said hello', turn_number: 1 });
  expect(eventTypes(s1.body)).toEqual(expect.arrayContaining(['llm_request', 'llm_chunk', 'tool_call', 'tool_result', 'llm_response', 'turn_complete']));
  const toolCall = (s1.body['observation']['turn_events'] as Json[]).find((e) => e['type'] === 'tool_call');
  expect(toolCall?.['data']).toMatchObject({ tool_name: 'echo', executor: 'harness:acp:acp-test' });
  expect((await step('acp-env', 'again')).body['observation']['response']).toBe('turn 2; you said again; earlier you said hello');

  // The agent asks permission: the step answers "awaiting_approval"; the approval goes over HTTP.
  const s3 = await step('acp-env', 'please write it down');
  expect(s3.body['observation']['status']).toBe('awaiting_approval');
  const asked = (s3.body['observation']['turn_events'] as Json[]).find((e) => e['data']?.['approval']?.['status'] === 'pending');
  const approvalId = asked?.['data']['approval']['approval_id'] as string;
  const sessionId = (await http('GET', 'v1/openenv/acp-env/state')).body['session_id'] as string;
  expect((await http('POST', `v1/sessions/${sessionId}/approvals/${approvalId}`, { decision: 'approved' })).status).toBe(200);
  let completed: Json | undefined;
  await until(
    'the approved turn to complete',
    async () => {
      completed = (await stack.events(tenant.tenantId, sessionId)).find(
        (e) => e.type === 'TurnCompleted' && (e.data as Json)['text'].startsWith('permission granted'),
      ) as Json | undefined;
      return completed !== undefined;
    },
    60_000,
  );
  expect(completed?.['data']['text']).toBe('permission granted: wrote notes.txt; turn 3; you said please write it down; earlier you said hello | again');

  const crash = await step('acp-env', 'now crash');
  expect(crash.body['observation']).toMatchObject({ status: 'failed', error: { code: 'HARNESS_CRASHED' } });
  expect(crash.body['observation']['error']['message']).toMatch(/exited with code 3/);
  expect(eventTypes(crash.body)).toContain('error');

  expect((await http('POST', 'v1/openenv/acp-env/reset', {})).status).toBe(200);
  expect((await step('acp-env', 'fresh start')).body['observation']).toMatchObject({ status: 'completed', response: 'turn 1; you said fresh start' });

  // The agent signals its task complete (ACP `_meta.openenv.done`): the episode is done (RFC 005).
  const fin = await step('acp-env', 'we are done');
  expect([fin.status, fin.body['done'], fin.body['observation']['status']]).toEqual([200, true, 'completed']);
  expect((fin.body['observation']['turn_events'] as Json[]).find((e) => e['type'] === 'turn_complete')?.['data']).toMatchObject({ done: true });
  expect((await step('acp-env', 'one more')).status).toBe(409);
});

it('kind command: context across steps, reset stops the process, a crash fails the step', async () => {
  expect((await http('PUT', 'v1/openenv/cmd-env', { harness: harness('command', 'command-test-agent.ts') })).status).toBe(200);
  expect((await http('POST', 'v1/openenv/cmd-env/reset', {})).status).toBe(200);
  const before = harnessPids();
  expect((await step('cmd-env', 'hello')).body['observation']).toMatchObject({ status: 'completed', response: 'turn 1; you said hello' });
  expect((await step('cmd-env', 'again')).body['observation']['response']).toBe('turn 2; you said again; earlier you said hello');
  const mine = harnessPids().filter((p) => !before.includes(p));
  expect(mine.length).toBeGreaterThan(0);

  expect((await http('POST', 'v1/openenv/cmd-env/reset', {})).status).toBe(200);
  await until("the reset episode's process to stop", () => mine.every((p) => !harnessPids().includes(p)), 20_000);
  expect((await step('cmd-env', 'fresh')).body['observation']['response']).toBe('turn 1; you said fresh');

  const crash = await step('cmd-env', 'crash now');
  expect(crash.body['observation']).toMatchObject({ status: 'failed', error: { code: 'HARNESS_CRASHED' } });
  expect(crash.body['observation']['error']['message']).toMatch(/exited with code 3.*crashing on turn 2/s);

  // A fresh process after the crash gets the history; its `"done": true` line ends the episode.
  const fin = await step('cmd-env', 'we are done');
  expect([fin.body['done'], fin.body['observation']['response']]).toEqual([true, 'turn 2; you said we are done; earlier you said fresh']);
  expect((await step('cmd-env', 'one more')).status).toBe(409);
});

it('kind acp with mcp_servers: the agent gets the injected server and calls its echo tool; the call is in the observation and the log', async () => {
  const put = await http('PUT', 'v1/openenv/acp-mcp', { harness: harness('acp', 'acp-test-agent.ts'), mcp_servers: [ECHO_SERVER] });
  expect(put.status).toBe(200);
  expect((await http('POST', 'v1/openenv/acp-mcp/reset', {})).status).toBe(200);

  const s1 = await step('acp-mcp', 'use echo with {"text":"hi from the trainer"}');
  expect(s1.status).toBe(200);
  expect(s1.body['observation']).toMatchObject({ status: 'completed', response: 'echo: hi from the trainer' });
  const events = s1.body['observation']['turn_events'] as Json[];
  const call = events.find((e) => e['type'] === 'tool_call');
  expect(call?.['data']).toMatchObject({ tool_name: 'echo', executor: 'harness:acp:acp-test', arguments: { text: 'hi from the trainer' } });
  const result = events.find((e) => e['type'] === 'tool_result');
  expect(result?.['data']).toMatchObject({
    tool_name: 'echo',
    status: 'complete',
    result: 'echo: hi from the trainer',
    tool_call_id: call?.['data']['tool_call_id'],
  });

  const sessionId = (await http('GET', 'v1/openenv/acp-mcp/state')).body['session_id'] as string;
  let log: Json[] = [];
  await until(
    'the turn in the settled log',
    async () => {
      log = (await stack.events(tenant.tenantId, sessionId)) as Json[];
      return log.some((e) => e['type'] === 'TurnCompleted');
    },
    60_000,
  );
  expect(log.find((e) => e['type'] === 'ToolCallStarted')?.['data']).toMatchObject({
    name: 'echo',
    executor: 'harness:acp:acp-test',
    input: { text: 'hi from the trainer' },
  });
  expect(log.find((e) => e['type'] === 'ToolCallCompleted')?.['data']).toMatchObject({ status: 'complete', output: 'echo: hi from the trainer' });
});
