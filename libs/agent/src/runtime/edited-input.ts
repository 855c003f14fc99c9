import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { RequestedToolCall } from '@hub/domain';
import { decidePolicy, type LoadedPolicy } from '../tools/policy';
import type { Tool } from '../tools/types';

// An approver may answer a permission request with edited arguments (Harn `{granted: true,
// args}`). The approval was given for the edited call, but the edit came from a person, not the
// model: before it runs it must fit the tool's input schema, and a policy that denies the edited
// call still denies it. The verdict is recorded like any tool result, so a replay needs no check.

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const compiled = new WeakMap<Tool, ValidateFunction | null>();

/** The tool's input schema, compiled once per tool; null when it does not compile (the tool then checks its input itself). */
function validatorOf(tool: Tool): ValidateFunction | null {
  if (!compiled.has(tool)) {
    let fn: ValidateFunction | null;
    try {
      fn = ajv.compile(tool.inputSchema);
    } catch {
      fn = null; // e.g. an MCP server's schema in a dialect Ajv rejects: its own validation still runs
    }
    compiled.set(tool, fn);
  }
  return compiled.get(tool) ?? null;
}

/** Why the edited call must not run (`deny`: refused by policy; `invalid`: fails the schema), or null when it may. */
export function editedCallVerdict(tool: Tool, call: RequestedToolCall, loaded?: LoadedPolicy): { kind: 'deny' | 'invalid'; message: string } | null {
  // The tenant's policy decides the edited call as it would the model's: a rule that denies it
  // (a path outside the workspace, a refused command) refuses it, with that rule as the reason.
  const policy = decidePolicy(tool, call.input, loaded);
  if (policy.decision === 'deny') return { kind: 'deny', message: `the approver's edited call is denied by policy: ${policy.reason}` };
  const validate = validatorOf(tool);
  if (validate && !validate(call.input)) {
    const issues = (validate.errors ?? []).map((e) => `${e.instancePath || '(input)'} ${e.message ?? 'is invalid'}`).join('; ');
    return { kind: 'invalid', message: `the approver's edited input does not match ${tool.name}'s input schema: ${issues}` };
  }
  return null;
}
