import { McpPool, buildRubric, listMcpTools, resolveMcpTools, stdioAllowed, type McpAllowlists } from '@hub/agent';
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
  allow: { harness: readonly (readonly string[])[]; mcp: McpAllowlists },
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
    if (!stdioAllowed(h.command, allow.harness)) {
      return refuse(['harness', 'command'], `harness command ${h.command.join(' ').slice(0, 200)} is not allowed on this hub: the operator lists the commands a harness may run in HUB_HARNESS_COMMANDS`);
    }
    if (h.transport !== 'stdio') return refuse(['harness', 'transport'], `harness transport ${h.transport} is not available: wrapped harnesses run over stdio`);
  }
  const mcp = await checkMcpServers(config, allow.mcp);
  if (mcp) return refuse(['mcp_servers'], mcp);
  return { ok: true, config };
}

const MCP_CHECK_TIMEOUT_MS = 20_000;

/** Why the environment's MCP servers cannot be used, or null. Connections are closed after. */
async function checkMcpServers(config: EnvironmentConfig, allow: McpAllowlists): Promise<string | null> {
  if (config.mcp_servers.length === 0) return null;
  const names = config.mcp_servers.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) return `MCP server name ${dup} is used twice`;
  const pool = new McpPool({ idleMs: 0, stdioAllowlist: allow.stdio, httpAllowlist: allow.http });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${MCP_CHECK_TIMEOUT_MS} ms`)), MCP_CHECK_TIMEOUT_MS)));
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
