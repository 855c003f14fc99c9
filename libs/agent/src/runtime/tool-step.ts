import { assistantMessageId, type HubEvent, type RequestedToolCall } from '@hub/domain';
import { decidePolicy } from '../tools/policy';
import type { ToolRegistry } from '../tools/registry';
import { ToolInputError } from '../tools/types';
import { workspaceFromEvents } from '../tools/workspace';
import type { TurnAttempt } from './context';
import { editedCallVerdict } from './edited-input';
import { deniedToolOutput } from './transcript';

export interface ToolStepDeps {
  tools: ToolRegistry;
  signal: AbortSignal;
  now: () => number;
  /** 0: approvals wait forever; else they are denied this long after being asked. */
  approvalTtlMs: number;
}

/**
 * Records that a tool call starts, with the policy's verdict. `ask` also records the approval
 * request (in the same append, so no reader sees one without the other) and returns its id.
 */
export async function startTool(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps): Promise<{ approvalId: string; deadlineMs: number } | null> {
  const { turnId } = attempt;
  const tool = deps.tools.get(call.name);
  const verdict = tool
    ? decidePolicy(tool, call.input)
    : { decision: 'deny' as const, riskTier: 'low' as const, reason: `unknown tool ${call.name}` };
  const events: HubEvent[] = [
    {
      type: 'ToolCallStarted',
      data: { turnId, messageId: assistantMessageId(turnId), toolCallId: call.toolCallId, name: call.name, input: call.input, policy: verdict.decision, executor: tool?.executor ?? 'none' },
    },
  ];
  if (verdict.decision !== 'ask') {
    await attempt.append(events);
    return null;
  }
  const approvalId = `appr_${call.toolCallId}`;
  const deadlineAt = deps.approvalTtlMs > 0 ? new Date(deps.now() + deps.approvalTtlMs).toISOString() : null;
  events.push({
    type: 'ApprovalRequested',
    data: { turnId, approvalId, toolCallId: call.toolCallId, toolName: call.name, input: call.input, riskTier: verdict.riskTier, reason: verdict.reason, deadlineAt },
  });
  await attempt.append(events);
  return { approvalId, deadlineMs: deps.approvalTtlMs };
}

/**
 * Runs an allowed or approved tool and records its result, errors included (the model sees them).
 * `edited`: the input is an approver's edit, checked again first (see edited-input.ts).
 */
export async function runTool(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps, edited = false): Promise<void> {
  const tool = deps.tools.get(call.name);
  const verdict = edited && tool ? editedCallVerdict(tool, call) : null;
  if (verdict?.kind === 'deny') return refuseTool(attempt, call, verdict.message);
  const t0 = deps.now();
  let status: 'complete' | 'error' = 'complete';
  let output: string;
  try {
    if (!tool) throw new ToolInputError(call.name, `unknown tool ${call.name}`);
    if (verdict) throw new ToolInputError(call.name, verdict.message);
    output = await tool.execute(call.input, {
      tenantId: attempt.tenantId,
      sessionId: attempt.sessionId,
      signal: deps.signal,
      files: workspaceFromEvents(attempt.sessionView().fileEvents),
    });
  } catch (e) {
    if (deps.signal.aborted) throw e;
    status = 'error';
    output = `ERROR: ${e instanceof Error ? e.message : String(e)}`;
  }
  await attempt.append([
    { type: 'ToolCallCompleted', data: { turnId: attempt.turnId, toolCallId: call.toolCallId, status, output, durationMs: Math.max(0, deps.now() - t0) } },
  ]);
}

/** Records a call that will not run (denied by policy or by a person). */
export async function refuseTool(attempt: TurnAttempt, call: RequestedToolCall, reason: string): Promise<void> {
  await attempt.append([
    { type: 'ToolCallCompleted', data: { turnId: attempt.turnId, toolCallId: call.toolCallId, status: 'denied', output: deniedToolOutput(reason), durationMs: 0 } },
  ]);
}
