import { readFileSync, readdirSync } from 'node:fs';
import { startMcpHttpServer, testCommandRule, testHarnessCommand as script } from '@hub/testing';
import type { McpAllowlists } from '../mcp/mcp-pool';
import type { McpServerSpec } from '../mcp/mcp-servers';
import { setup, spec, text, until } from './harness-test-kit';

// The environment's MCP servers reach an external harness: a real MCP server (stdio, and over
// HTTP) that the ACP test agent calls itself, the servers the operator does not allow left out.

jest.setTimeout(90_000);

describe('MCP servers of the environment reach the harness', () => {
  // A marker argument on each MCP server command: finds this file's server processes on the host.
  const MARKER = `mcp-int-${Math.random().toString(36).slice(2)}`;
  const echo: McpServerSpec = { name: 'echo', transport: 'stdio', command: script('mcp-echo-server.ts', MARKER), env: {} };
  const echoAllowed: McpAllowlists = { stdio: [testCommandRule(echo.command.slice(0, 4))] };
  const markedPids = () =>
    readdirSync('/proc').filter((d) => {
      try {
        return /^\d+$/.test(d) && readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(MARKER);
      } catch {
        return false; // ended while we looked
      }
    });

  it('kind acp: the agent gets the stdio server at session/new, calls its echo tool itself, and the call is in the log', async () => {
    const h = setup(spec('acp'), undefined, { servers: [echo], allow: echoAllowed });
    try {
      await h.submit('t1', 'use echo with {"text":"hi from the hub"}');
      expect(await h.run('t1')).toBe('completed');
      expect(text(h.end('t1'))).toBe('echo: hi from the hub');
      expect(h.of('t1').find((e) => e.type === 'ToolCallStarted')?.data).toMatchObject({
        name: 'echo',
        executor: 'harness:acp:acp-test',
        input: { text: 'hi from the hub' },
      });
      expect(h.of('t1').find((e) => e.type === 'ToolCallCompleted')?.data).toMatchObject({ status: 'complete', output: 'echo: hi from the hub' });
      expect(markedPids().length).toBeGreaterThan(0);
      // The same process (and MCP connection) serves the next turn.
      const pid = h.pid();
      await h.submit('t2', 'use echo/echo with {"text":"again"}');
      expect(await h.run('t2')).toBe('completed');
      expect(text(h.end('t2'))).toBe('echo: again');
      expect(h.pid()).toBe(pid);
      // A cold process (after a crash) gets the servers at its session/new too.
      await h.submit('t3', 'now crash');
      expect(await h.run('t3')).toBe('failed');
      await h.submit('t4', 'use echo with {"text":"back"}');
      expect(await h.run('t4')).toBe('completed');
      expect(text(h.end('t4'))).toBe('echo: back');
      expect(h.pid()).not.toBe(pid);
      expect(h.warnings).toEqual([]);
    } finally {
      await h.processes.stopAll();
    }
    // Stopping the harness leaves no MCP server process behind.
    await until('the MCP server processes to exit', () => markedPids().length === 0, 10_000);
  });

  it('a tool the servers do not have fails the tool call, and the agent says so', async () => {
    const h = setup(spec('acp'), undefined, { servers: [echo], allow: echoAllowed });
    try {
      await h.submit('t1', 'use nosuch with {}');
      expect(await h.run('t1')).toBe('completed');
      expect(text(h.end('t1'))).toBe('could not use nosuch: no MCP server of this session lists a tool nosuch');
      expect(h.of('t1').find((e) => e.type === 'ToolCallCompleted')?.data).toMatchObject({ status: 'error' });
    } finally {
      await h.processes.stopAll();
    }
  });

  it('servers the operator does not allow are left out, and reported', async () => {
    const h = setup(spec('acp'), undefined, { servers: [echo, { ...echo, name: 'other', command: ['/bin/sh', '-c', 'true'] }], allow: echoAllowed });
    try {
      await h.submit('t1', 'which mcp servers');
      expect(await h.run('t1')).toBe('completed');
      expect(text(h.end('t1'))).toBe('mcp servers: echo');
      expect(h.warnings).toEqual([
        expect.stringMatching(/^MCP server other is not passed to the acp-test harness: .*not allowed on this hub \(HUB_MCP_STDIO_COMMANDS\)/),
      ]);
    } finally {
      await h.processes.stopAll();
    }
  });

  describe('an http server', () => {
    let server: Awaited<ReturnType<typeof startMcpHttpServer>>;
    let url: string;
    beforeAll(async () => {
      server = await startMcpHttpServer();
      url = server.url;
    });
    afterAll(() => server.stop());
    const web = (): McpServerSpec => ({ name: 'web', transport: 'http', url });

    it('goes to an agent that declares mcpCapabilities.http, which calls it', async () => {
      const h = setup(spec('acp'), undefined, { servers: [echo, web()], allow: { ...echoAllowed, http: [url] } });
      try {
        await h.submit('t1', 'use web/reverse with {"text":"abc"}');
        expect(await h.run('t1')).toBe('completed');
        expect(text(h.end('t1'))).toBe('reversed: cba');
        expect(h.of('t1').find((e) => e.type === 'ToolCallStarted')?.data).toMatchObject({
          name: 'reverse',
          executor: 'harness:acp:acp-test',
          input: { text: 'abc' },
        });
        expect(h.of('t1').find((e) => e.type === 'ToolCallCompleted')?.data).toMatchObject({ status: 'complete', output: 'reversed: cba' });
      } finally {
        await h.processes.stopAll();
      }
    });

    it('is left out for an agent that does not (and that is reported)', async () => {
      const h = setup(spec('acp', { command: [...script('acp-test-agent.ts'), '--no-http-mcp'] }), undefined, {
        servers: [echo, web()],
        allow: { ...echoAllowed, http: [url] },
      });
      try {
        await h.submit('t1', 'which mcp servers');
        expect(await h.run('t1')).toBe('completed');
        expect(text(h.end('t1'))).toBe('mcp servers: echo');
        expect(h.warnings).toEqual([
          expect.stringMatching(/^MCP server web is not passed to the acp-test harness: the agent does not declare agentCapabilities\.mcpCapabilities\.http/),
        ]);
      } finally {
        await h.processes.stopAll();
      }
    });

    it('kind command: the turn line carries the allowed servers in the hub form', async () => {
      const h = setup(spec('command'), undefined, { servers: [echo, web()], allow: echoAllowed });
      try {
        await h.submit('t1', 'which mcp servers');
        expect(await h.run('t1')).toBe('completed');
        expect(text(h.end('t1'))).toBe('mcp servers: echo (stdio)');
        expect(h.warnings).toEqual([expect.stringMatching(/^MCP server web is not passed .*HUB_MCP_HTTP_URLS/)]);
      } finally {
        await h.processes.stopAll();
      }
    });
  });
});
