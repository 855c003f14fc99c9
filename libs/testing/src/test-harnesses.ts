import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './processes';

// How tests start the small real programs in tools/test-harnesses (MCP servers, test agents):
// node with the TypeScript loader, as bin/hub runs the hub.

/** The interpreter and loader that run a TypeScript file of this repo. */
export const TS_NODE: readonly string[] = [process.execPath, '-r', resolve(REPO_ROOT, 'node_modules/@swc-node/register/index.js')];
/** The environment that loader needs. */
export const TS_ENV: Readonly<Record<string, string>> = { SWC_NODE_PROJECT: resolve(REPO_ROOT, 'tsconfig.base.json') };

/** The least environment a harness process under test gets from its host (the adapters' `baseEnv`). */
export const TEST_HARNESS_BASE_ENV: Readonly<Record<string, string>> = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };

/**
 * The operator's allowlist entry (`HUB_MCP_STDIO_COMMANDS`, `HUB_HARNESS_COMMANDS` syntax) for a
 * test program: its command-line prefix, the loader's variables fixed by the operator, and any
 * variables a tenant may set. Tenants never pass the loader's variables themselves.
 */
export function testAllowEntry(prefix: readonly string[], tenantMay: readonly string[] = []): string {
  const env = [...Object.entries(TS_ENV).map(([k, v]) => `${k}=${v}`), ...tenantMay];
  return `${prefix.join(' ')} env:${env.join(',')}`;
}

/** The same entry as a parsed rule, for tests that build the allowlists in process. */
export function testCommandRule(
  prefix: readonly string[],
  tenantMay: readonly string[] = [],
): { prefix: string[]; fixedEnv: Record<string, string>; tenantEnv: string[] } {
  return { prefix: [...prefix], fixedEnv: { ...TS_ENV }, tenantEnv: [...tenantMay] };
}

/** The command line of tools/test-harnesses/`script` with `args`. */
export const testHarnessCommand = (script: string, ...args: string[]): string[] => [...TS_NODE, resolve(REPO_ROOT, 'tools/test-harnesses', script), ...args];

/**
 * Starts tools/test-harnesses/mcp-http-server.ts (a streamable-HTTP MCP server) on `port` (0: any
 * free one) and resolves once it prints its URL.
 */
export async function startMcpHttpServer(port = 0): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const [node, ...args] = testHarnessCommand('mcp-http-server.ts', '--port', String(port));
  const child = spawn(node, args, { env: { ...process.env, ...TS_ENV }, stdio: ['ignore', 'pipe', 'inherit'] });
  const stdout = child.stdout;
  if (!stdout) throw new Error('no stdout pipe');
  const url = await new Promise<string>((resolveUrl, reject) => {
    createInterface({ input: stdout }).once('line', resolveUrl);
    child.once('exit', (code) => reject(new Error(`mcp-http-server exited (${code}) before listening`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stop };
}
