import { buildRubric } from '@hub/agent';
import { ENV_NAME_PATTERN, EnvironmentConfig, validationDetail, type ValidationDetail } from '@hub/protocol-openenv';
import { OpenEnvRefusal } from './openenv-episodes';

/** The `<env>` path segment, checked; an impossible name is an unknown environment. */
export function envName(raw: string): string {
  if (!ENV_NAME_PATTERN.test(raw)) throw new OpenEnvRefusal('not_found', `no environment ${raw.slice(0, 64)}: names are 1-63 of [a-z0-9_-]`);
  return raw;
}

/**
 * A `PUT /v1/openenv/<env>` body, checked at configuration time: the schema, the rubric's kind
 * and parameters, and what this hub cannot run yet (wrapped harnesses, MCP injection).
 */
export async function checkEnvironment(body: unknown): Promise<{ ok: true; config: EnvironmentConfig } | { ok: false; detail: ValidationDetail[] }> {
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
  if (config.harness.kind !== 'builtin' && config.harness.command.length === 0) return refuse(['harness', 'command'], `a ${config.harness.kind} harness needs a command`);
  // Refused rather than silently run by the built-in agent: these are not wired to the worker yet.
  if (config.harness.kind !== 'builtin') return refuse(['harness', 'kind'], `harness kind ${config.harness.kind} is not available yet: only builtin runs`);
  if (config.mcp_servers.length > 0) return refuse(['mcp_servers'], 'MCP tool injection is not available yet');
  return { ok: true, config };
}
