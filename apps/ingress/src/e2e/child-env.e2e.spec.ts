import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createPool } from '@hub/event-store';
import { HubStack, hubJson, testAllowEntry, testHarnessCommand } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';

// Issue 11, defect 2: with an allowed `node ...` command, a tenant's NODE_OPTIONS ran the tenant's
// code on our hosts through every surface that starts a process (OpenEnv MCP servers, wrapped
// harnesses, ACP session/new MCP servers), and the values a tenant gave were stored in the log.
// Children get the environment the operator's entry allows; allowed values never enter the log.

jest.setTimeout(120_000);

const ECHO = testHarnessCommand('mcp-echo-server.ts');
const AGENT = testHarnessCommand('command-test-agent.ts');

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let pool: ReturnType<typeof createPool>;
const clients: AcpSdkClient[] = [];

beforeAll(async () => {
  const allow = { HUB_MCP_STDIO_COMMANDS: testAllowEntry(ECHO, ['REGION']), HUB_HARNESS_COMMANDS: testAllowEntry(AGENT, ['REGION']) };
  stack = await HubStack.start({ label: 'childenv', workers: 1, workerEnv: allow, ingressEnv: allow });
  tenant = await stack.createTenant('env');
  pool = createPool(stack.databaseUrl, { max: 2 });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await pool?.end();
  await stack?.stop();
});

/** NODE_OPTIONS that make node run the tenant's code first: it creates `file`. */
const attack = (file: string) =>
  `--import=data:text/javascript,${encodeURIComponent(`import fs from "node:fs";fs.writeFileSync(${JSON.stringify(file)},"pwned")`)}`;
const marker = () => join(tmpdir(), `hub-pwned-${randomUUID()}`);
const put = (env: string, body: unknown) => hubJson('PUT', `${stack.url}/v1/openenv/${env}`, tenant.apiKey, body);
const inLog = async (text: string) =>
  Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE data::text LIKE $1', [`%${text}%`])).rows[0].n);

async function acp(): Promise<AcpSdkClient> {
  const c = AcpSdkClient.ws(stack.url, tenant.apiKey);
  clients.push(c);
  await c.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return c;
}

describe('a tenant cannot set what the operator did not allow', () => {
  it('OpenEnv PUT: NODE_OPTIONS on an MCP server is refused (422 naming it) and runs nothing', async () => {
    const file = marker();
    const r = await put('evil-mcp', { mcp_servers: [{ name: 'echo', transport: 'stdio', command: [...ECHO, 'a'], env: { NODE_OPTIONS: attack(file) } }] });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain('NODE_OPTIONS may not be set');
    await new Promise((res) => setTimeout(res, 500));
    expect(existsSync(file)).toBe(false);
    expect(await inLog('NODE_OPTIONS')).toBe(0);
  });

  it('OpenEnv PUT: NODE_OPTIONS in a wrapped harness env_vars is refused (422 naming it)', async () => {
    const r = await put('evil-harness', { harness: { name: 'cmd', kind: 'command', command: AGENT, env_vars: { NODE_OPTIONS: attack(marker()) } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ detail: [{ loc: ['body', 'harness', 'env_vars', 'NODE_OPTIONS'] }] });
  });

  it('ACP session/new: NODE_OPTIONS on a stdio MCP server is refused with -32602, and nothing is recorded', async () => {
    const file = marker();
    const c = await acp();
    const server = { name: 'echo', command: ECHO[0], args: [...ECHO.slice(1), 'a'], env: [{ name: 'NODE_OPTIONS', value: attack(file) }] };
    await expect(c.request('session/new', { cwd: '/', mcpServers: [server] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('NODE_OPTIONS'),
    });
    expect(existsSync(file)).toBe(false);
    expect(await inLog('NODE_OPTIONS')).toBe(0);
  });
});

describe('values a tenant may set are kept out of the log', () => {
  it('OpenEnv: an MCP env value and a harness env_vars value are stored as references; GET shows references', async () => {
    const mcpValue = `mcp-${randomUUID()}`;
    const harnessValue = `harness-${randomUUID()}`;
    const r = await put('region', {
      harness: { name: 'cmd', kind: 'command', command: AGENT, env_vars: { REGION: harnessValue } },
      mcp_servers: [{ name: 'echo', transport: 'stdio', command: [...ECHO, 'a'], env: { REGION: mcpValue } }],
    });
    expect(r.status).toBe(200);
    const got = await hubJson('GET', `${stack.url}/v1/openenv/region`, tenant.apiKey);
    expect(JSON.stringify(got.body)).not.toContain(mcpValue);
    expect(got.body).toMatchObject({
      config: {
        harness: { env_vars: { REGION: expect.stringMatching(/^hub-secret:/) } },
        mcp_servers: [{ env: { REGION: expect.stringMatching(/^hub-secret:/) } }],
      },
    });
    expect(await inLog(mcpValue)).toBe(0);
    expect(await inLog(harnessValue)).toBe(0);
    const kept = await pool.query('SELECT value FROM tenant_secrets WHERE tenant_id = $1', [tenant.tenantId]);
    expect(kept.rows.map((row: { value: string }) => row.value)).toEqual(expect.arrayContaining([mcpValue, harnessValue]));
    // A reference read back can be PUT again as it is; another tenant's reference cannot.
    expect((await put('region', got.body['config'])).status).toBe(200);
    const other = await stack.createTenant('other');
    const stolen = await hubJson('PUT', `${stack.url}/v1/openenv/steal`, other.apiKey, { harness: got.body['config']['harness'] });
    expect(stolen.status).toBe(422);
  });

  it('ACP: a session MCP server env value is recorded as a reference, not the value', async () => {
    const value = `acp-${randomUUID()}`;
    const c = await acp();
    const server = { name: 'echo', command: ECHO[0], args: [...ECHO.slice(1), 'a'], env: [{ name: 'REGION', value }] };
    const { sessionId } = await c.request<{ sessionId: string }>('session/new', { cwd: '/', mcpServers: [server] });
    expect(sessionId).toBeTruthy();
    expect(await inLog(value)).toBe(0);
    expect(await inLog('hub-secret:')).toBeGreaterThan(0);
  });
});
