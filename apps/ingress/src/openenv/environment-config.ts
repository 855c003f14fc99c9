import { McpPool, buildRubric, listMcpTools, resolveMcpTools, type McpAllowlists } from '@hub/agent';
import { commandRule, tenantEnvRefused, type CommandRule } from '@hub/config';
import { ENV_NAME_PATTERN, EnvironmentConfig, validationDetail, type ValidationDetail } from '@hub/protocol-openenv';
import { OpenEnvRefusal } from './openenv-episodes';

/** The `<env>` path segment, checked; an impossible name is an unknown environment. */
export function envName(raw: string): string {
  if (!ENV_NAME_PATTERN.test(raw)) throw new OpenEnvRefusal('not_found', `no environment ${raw.slice(0, 64)}: names are 1-63 of [a-z0-9_-]`);
  return raw;
}

/**
 * A `PUT /v1/openenv/<env>` body, checked at configuration time: the schema, the rubric's kind
 * and parameters, a wrapped harness's command (kinds `acp` and `command` run a process on the
 * workers, so it must be on the operator's `HUB_HARNESS_COMMANDS`), and the MCP servers: each must
 * be allowed (`HUB_MCP_STDIO_COMMANDS`, `HUB_MCP_HTTP_URLS`) and is connected and its tools
 * listed, so a server that does not answer, or one tool name with two schemas across servers, is
 * refused now rather than failing every step later.
 */
export async function checkEnvironment(
  body: unknown,
  allow: { harness: readonly CommandRule[]; mcp: McpAllowlists },
  /** Opens `hub-secret:` references of the caller's tenant (a configuration read back and PUT again). */
  openEnv?: (env: Readonly<Record<string, string>>) => Promise<Record<string, string>>,
): Promise<{ ok: true; config: EnvironmentConfig } | { ok: false; detail: ValidationDetail[] }> {
  const r = EnvironmentConfig.safeParse(body ?? {});
  if (!r.success) return { ok: false, detail: validationDetail(r.error, ['body'], body) };
  const config = r.data;
  const refuse = (loc: string[], msg: string) => ({ ok: false as const, detail: [{ type: 'value_error', loc: ['body', ...loc], msg }] });
  if (config.rubric) {
    try {
      buildRubric(config.rubric);
    } catch (e) {
      return refuse(['rubric'], (e as Error).message);
    }
  }
  const h = config.harness;
  if (h.kind !== 'builtin') {
    if (h.command.length === 0) return refuse(['harness', 'command'], `a ${h.kind} harness needs a command`);
    const rule = commandRule(h.command, allow.harness);
    if (!rule) {
      return refuse(
        ['harness', 'command'],
        `harness command ${h.command.join(' ').slice(0, 200)} is not allowed on this hub: the operator lists the commands a harness may run in HUB_HARNESS_COMMANDS`,
      );
    }
    // The process gets only the variables the operator lets a tenant set for this command.
    const refusedEnv = tenantEnvRefused(rule, h.env_vars);
    if (refusedEnv.length > 0) {
      return refuse(
        ['harness', 'env_vars', refusedEnv[0]],
        `${refusedEnv.join(', ')} may not be set for this harness command: the operator lists the variables a tenant may set in HUB_HARNESS_COMMANDS (env:NAME)`,
      );
    }
    if (h.transport !== 'stdio') return refuse(['harness', 'transport'], `harness transport ${h.transport} is not available: wrapped harnesses run over stdio`);
  }
  const mcp = await checkMcpServers(config, allow.mcp, openEnv);
  if (mcp) return refuse(['mcp_servers'], mcp);
  return { ok: true, config };
}

const MCP_CHECK_TIMEOUT_MS = 20_000;

/** Why the environment's MCP servers cannot be used, or null. Connections are closed after. */
async function checkMcpServers(
  config: EnvironmentConfig,
  allow: McpAllowlists,
  openEnv?: (env: Readonly<Record<string, string>>) => Promise<Record<string, string>>,
): Promise<string | null> {
  if (config.mcp_servers.length === 0) return null;
  const names = config.mcp_servers.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) return `MCP server name ${dup} is used twice`;
  const pool = new McpPool({ idleMs: 0, stdioAllowlist: allow.stdio, httpAllowlist: allow.http, openEnv: openEnv && ((_scope, env) => openEnv(env)) });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${MCP_CHECK_TIMEOUT_MS} ms`)), MCP_CHECK_TIMEOUT_MS)),
  );
  try {
    // Resolving throws on one name with two schemas. The built-ins' names only decide `env_`
    // prefixes, which cannot conflict: an empty set suffices.
    resolveMcpTools(await Promise.race([listMcpTools(config.mcp_servers, pool), timeout]), new Set());
    return null;
  } catch (e) {
    return `MCP servers: ${(e as Error).message}`;
  } finally {
    clearTimeout(timer);
    await pool.close();
  }
}

/**
 * `config` with the values of every environment a tenant gave (its MCP servers' `env`, its
 * harness's `env_vars`) replaced by secret references (`seal`): what is recorded in the log and
 * answered by `GET` never holds them.
 */
export async function sealEnvironment(
  config: EnvironmentConfig,
  seal: (env: Readonly<Record<string, string>>) => Promise<Record<string, string>>,
): Promise<EnvironmentConfig> {
  const mcp_servers = await Promise.all(
    config.mcp_servers.map(async (s) => (s.transport === 'stdio' && Object.keys(s.env).length > 0 ? { ...s, env: await seal(s.env) } : s)),
  );
  const h = config.harness;
  const harness = h.kind !== 'builtin' && Object.keys(h.env_vars).length > 0 ? { ...h, env_vars: await seal(h.env_vars) } : h;
  return { ...config, mcp_servers, harness };
}
