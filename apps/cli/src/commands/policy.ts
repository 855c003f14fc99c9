import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runApiCommand, type ApiRequest } from './api-request';

/** `hub policy` usage: a client of the HTTP API (`/v1/admin/policy`) with HUB_URL and HUB_API_KEY. */
export const POLICY_USAGE = `usage: hub policy <command> (HUB_URL, HUB_API_KEY; admins set it, every role but client reads it)

  show                             the tenant's approval policy in force and its version
  set FILE [--expected-version N]  replace it with the JSON policy in FILE (docs/approval-policy.md);
                                   an invalid one is refused with the path to the bad field
  explain TOOL [JSON_ARGS] [--executor E] [--risk low|medium|high]
                                   which rule decides a call of TOOL with these arguments, and why
`;

export class PolicyUsageError extends Error {}

/** The request one command makes: method, path and body. */
export function policyRequestOf(argv: string[]): ApiRequest {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'expected-version': { type: 'string' }, executor: { type: 'string' }, risk: { type: 'string' } },
  });
  const [cmd, first, second] = positionals;
  switch (cmd) {
    case 'show':
      return { method: 'GET', path: '/v1/admin/policy' };
    case 'set': {
      if (!first) throw new PolicyUsageError('set needs a FILE');
      const expected = values['expected-version'];
      return {
        method: 'PUT',
        path: `/v1/admin/policy${expected === undefined ? '' : `?expectedVersion=${encodeURIComponent(expected)}`}`,
        body: jsonOf(readFileSync(first, 'utf8'), first),
      };
    }
    case 'explain': {
      if (!first) throw new PolicyUsageError('explain needs a TOOL');
      const input = second === undefined ? {} : jsonOf(second, 'JSON_ARGS');
      return {
        method: 'POST',
        path: '/v1/admin/policy/explain',
        body: { tool: first, input, ...(values.executor ? { executor: values.executor } : {}), ...(values.risk ? { riskTier: values.risk } : {}) },
      };
    }
    default:
      throw new PolicyUsageError(cmd ? `unknown policy command: ${cmd}` : 'policy needs a command');
  }
}

function jsonOf(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PolicyUsageError(`${what} is not JSON: ${(e as Error).message}`);
  }
}

/**
 * `hub policy ...`: prints the API's answer as one JSON line; exit 0 on success, 1 when the hub
 * refused (its code and detail, with the bad field's path, on stderr), 2 for a usage error, 3 when
 * the hub cannot be reached.
 */
export async function policy(argv: string[], env: { hubUrl: string; apiKey: string | undefined }): Promise<number> {
  return runApiCommand(argv, env, { name: 'policy', usage: POLICY_USAGE, requestOf: policyRequestOf, usageError: PolicyUsageError, listKeys: [] });
}
