import { ATTR, hubMetrics, withSpan, type SpanHandle } from '@hub/telemetry';
import { actorIdentity, assistantMessageId, type HubEvent, type QuorumTerms, type RequestedToolCall } from '@hub/domain';
import type { ResolvedApproval } from '@hub/policy';
import { BUILTIN, decidePolicy, type LoadedPolicy } from '../tools/policy';
import type { ToolRegistry } from '../tools/registry';
import { ToolInputError } from '../tools/types';
import { workspaceFromEvents } from '../tools/workspace';
import type { TurnAttempt } from './context';
import { editedCallVerdict } from './edited-input';
import { callKey, type RecordedResult, type RecordedTools } from './recorded-tools';
import { deniedToolOutput } from './transcript';

export interface ToolStepDeps {
  tools: ToolRegistry;
  signal: AbortSignal;
  now: () => number;
  /** 0: approvals wait forever; else they are denied this long after being asked. */
  approvalTtlMs: number;
  /** A re-drive with recorded tools: the source's results, and the source turn this turn re-runs. */
  recorded?: { tools: RecordedTools; sourceTurnId: string } | null;
  /** The tenant's approval policy, loaded once per job (absent: the built-in one). */
  policy?: LoadedPolicy;
  /**
   * Schedules an approval's deadline. Called before the approval is appended, so a worker that
   * dies right after the append leaves no approval without its deadline (a deadline for an
   * approval never appended finds nothing to expire).
   */
  scheduleExpiry?: (approvalId: string, deadlineMs: number, deadlineAt: string) => Promise<void>;
}

/** The executor named on a call served from a re-drive's recording instead of running. */
export const RECORDED_EXECUTOR = 'recorded';

/**
 * Records that a tool call starts, with the policy's verdict. `ask` also records the approval
 * request (in the same append, so no reader sees one without the other), its deadline scheduled first.
 */
export async function startTool(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps): Promise<void> {
  const { turnId } = attempt;
  if (recordedResult(attempt, call, deps)) {
    // Served from the recording: it neither runs nor asks anyone, whatever its policy.
    await attempt.append([
      {
        type: 'ToolCallStarted',
        data: {
          turnId,
          messageId: assistantMessageId(turnId),
          toolCallId: call.toolCallId,
          name: call.name,
          input: call.input,
          policy: 'allow',
          executor: RECORDED_EXECUTOR,
        },
      },
    ]);
    return;
  }
  const tool = deps.tools.get(call.name);
  if (!tool) {
    await attempt.append([
      {
        type: 'ToolCallStarted',
        data: {
          turnId,
          messageId: assistantMessageId(turnId),
          toolCallId: call.toolCallId,
          name: call.name,
          input: call.input,
          policy: 'deny',
          executor: 'none',
        },
      },
    ]);
    return;
  }
  const verdict = decidePolicy(tool, call.input, deps.policy ?? BUILTIN);
  const events: HubEvent[] = [
    {
      type: 'ToolCallStarted',
      data: {
        turnId,
        messageId: assistantMessageId(turnId),
        toolCallId: call.toolCallId,
        name: call.name,
        input: call.input,
        policy: verdict.decision,
        executor: tool.executor,
        policyRule: verdict.rule,
      },
    },
  ];
  if (verdict.decision === 'deny') {
    // Refused in the same append, with the rule as its reason: the model, every protocol and the
    // explorer see which rule refused it (a call never runs between the two events).
    events.push({
      type: 'ToolCallCompleted',
      data: { turnId, toolCallId: call.toolCallId, status: 'denied', output: deniedToolOutput(verdict.reason), durationMs: 0 },
    });
  }
  if (verdict.decision !== 'ask') {
    await attempt.append(events);
    return;
  }
  const approvalId = `appr_${call.toolCallId}`;
  // The rule's deadline, else the deployment's approval TTL (0: none).
  const deadlineMs = verdict.approval?.deadline ? verdict.approval.deadline.afterSeconds * 1000 : deps.approvalTtlMs;
  const deadlineAt = deadlineMs > 0 ? new Date(deps.now() + deadlineMs).toISOString() : null;
  events.push({
    type: 'ApprovalRequested',
    data: {
      turnId,
      approvalId,
      toolCallId: call.toolCallId,
      toolName: call.name,
      input: call.input,
      riskTier: verdict.riskTier,
      reason: verdict.reason,
      deadlineAt,
      policy: verdict.rule,
      ...(await quorumOf(attempt, verdict.approval)),
      // What the rule's deadline does when it passes, when not the default denial (ADR 0048).
      ...(verdict.approval?.deadline && verdict.approval.deadline.onExpiry !== 'deny' ? { onExpiry: verdict.approval.deadline.onExpiry } : {}),
    },
  });
  if (deadlineAt !== null) await deps.scheduleExpiry?.(approvalId, deadlineMs, deadlineAt);
  await attempt.append(events);
}

/**
 * Runs an allowed or approved tool and records its result, errors included (the model sees them).
 * `edited`: the input is an approver's edit, checked again first (see edited-input.ts).
 */
export function runTool(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps, edited = false): Promise<void> {
  const approval = attempt.progress().tools.find((t) => t.call.toolCallId === call.toolCallId)?.approval ?? null;
  const attrs = {
    [ATTR.TOOL_NAME]: call.name,
    [ATTR.TOOL_CALL_ID]: call.toolCallId,
    [ATTR.TURN_ID]: attempt.turnId,
    [ATTR.APPROVAL_ID]: approval?.approvalId,
    'hub.executor': deps.tools.get(call.name)?.executor ?? 'none',
    'hub.edited': edited,
    'hub.approval_wait_ms': approvalWaitMs(attempt, approval?.approvalId),
  };
  return withSpan('tool call', attrs, (span) => runToolIn(attempt, call, deps, edited, span));
}

async function runToolIn(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps, edited: boolean, span: SpanHandle): Promise<void> {
  const recorded = edited ? undefined : recordedResult(attempt, call, deps);
  if (recorded) {
    span.setAttributes({ 'hub.executor': RECORDED_EXECUTOR, 'hub.tool_status': recorded.status });
    hubMetrics().toolCalls.add(1, { tool: call.name, executor: RECORDED_EXECUTOR, status: recorded.status });
    await attempt.append([
      {
        type: 'ToolCallCompleted',
        data: { turnId: attempt.turnId, toolCallId: call.toolCallId, status: recorded.status, output: recorded.output, durationMs: 0 },
      },
    ]);
    return;
  }
  const tool = deps.tools.get(call.name);
  const verdict = edited && tool ? editedCallVerdict(tool, call, deps.policy ?? BUILTIN) : null;
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
  span.setAttributes({ 'hub.tool_status': status, 'hub.tool_ms': Math.max(0, deps.now() - t0) });
  hubMetrics().toolCalls.add(1, { tool: call.name, executor: tool?.executor ?? 'none', status });
  await attempt.append([
    { type: 'ToolCallCompleted', data: { turnId: attempt.turnId, toolCallId: call.toolCallId, status, output, durationMs: Math.max(0, deps.now() - t0) } },
  ]);
}

/** Records a call that will not run (denied by policy or by a person). */
export async function refuseTool(attempt: TurnAttempt, call: RequestedToolCall, reason: string): Promise<void> {
  await attempt.append([
    {
      type: 'ToolCallCompleted',
      data: { turnId: attempt.turnId, toolCallId: call.toolCallId, status: 'denied', output: deniedToolOutput(reason), durationMs: 0 },
    },
  ]);
}

/** How long a person took to answer the call's approval, when both events are in the loaded tail. */
function approvalWaitMs(attempt: TurnAttempt, approvalId: string | undefined): number | undefined {
  if (approvalId === undefined) return undefined;
  const at = (type: string) => attempt.events.find((e) => e.type === type && (e.data as { approvalId?: string }).approvalId === approvalId)?.createdAt;
  const asked = at('ApprovalRequested');
  const answered = at('ApprovalResolved');
  return asked && answered ? Math.max(0, Date.parse(answered) - Date.parse(asked)) : undefined;
}

/**
 * The recording's result for `call` in a re-drive with recorded tools: the n-th call of the turn
 * with this tool and these arguments gets the source turn's n-th such result. Counted from the
 * turn's progress, so a retried step finds the same one.
 */
function recordedResult(attempt: TurnAttempt, call: RequestedToolCall, deps: ToolStepDeps): RecordedResult | undefined {
  if (!deps.recorded) return undefined;
  const key = callKey(call.name, call.input);
  const calls = attempt.progress().tools.map((t) => t.call);
  const index = calls.findIndex((c) => c.toolCallId === call.toolCallId);
  const ordinal = calls.slice(0, index < 0 ? calls.length : index).filter((c) => callKey(c.name, c.input) === key).length;
  return deps.recorded.tools.find(deps.recorded.sourceTurnId, call.name, call.input, ordinal);
}

/**
 * The quorum terms an approval records (ADR 0048), when its rule asks for more than "the first
 * answer from anyone who may answer approvals": several approvers, named ones, or not the requester.
 */
async function quorumOf(attempt: TurnAttempt, approval: ResolvedApproval | null): Promise<{ quorum?: QuorumTerms }> {
  if (!approval || (approval.required <= 1 && !approval.approvers && approval.requesterMayApprove)) return {};
  const requester = approval.requesterMayApprove ? null : await attempt.requester();
  return {
    quorum: {
      required: approval.required,
      ...(approval.approvers ? { approvers: approval.approvers } : {}),
      requesterMayApprove: approval.requesterMayApprove,
      requester: requester ? actorIdentity(requester) : null,
    },
  };
}
