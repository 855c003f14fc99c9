import { ResolveApproval, SESSION_ID_PATTERN, SubmitTurn } from '@hub/domain';
import type { z } from 'zod';
import { agUiError, type AgUiInputError } from './errors';
import { ApprovalAnswer, HUB_NAMESPACE, HubProps, RunAgentInput } from './schema';
import { CONTEXT_KEY, type AgUiView } from './view';

/** A RunAgentInput the hub can act on: the ids, the prompt it may carry, the answers it may carry. */
export interface RunRequest {
  /** The hub session (`threadId`). */
  readonly sessionId: string;
  /** The hub turn a new prompt becomes (`runId`). */
  readonly runId: string;
  /** The last message, when it is a user message: a new prompt unless the hub has it already. */
  readonly prompt: { readonly messageId: string; readonly text: string } | null;
  /** `resume` entries as decisions on the hub's approvals. */
  readonly resolutions: readonly ResolveApproval[];
  readonly busyPolicy: HubProps['busyPolicy'];
  /** `context` entries, handed to the turn as context. */
  readonly context: readonly { description: string; value: string }[];
}

/** What the run does: submit a turn, answer approvals and follow their turn, or watch the session. */
export type RunPlan =
  | { readonly kind: 'submit'; readonly command: SubmitTurn; readonly commandId: string; readonly follow: string }
  | { readonly kind: 'resume'; readonly commands: readonly ResolveApproval[]; readonly follow: string | null }
  | { readonly kind: 'attach'; readonly follow: string | null };

/** The major version of AG-UI this hub speaks. */
const MAJOR = '1';

/**
 * Decodes a POSTed body into a run request, or the reason it is refused. Pure; never throws.
 * Client-side `tools` are refused, never dropped: the hub's agent runs its own tools.
 */
export function decodeRun(body: unknown): { ok: true; request: RunRequest } | { ok: false; error: AgUiInputError } {
  const parsed = RunAgentInput.safeParse(body);
  if (!parsed.success) return { ok: false, error: fromIssues(parsed.error.issues) };
  const input = parsed.data;
  const refused = checkInput(input);
  if (refused) return { ok: false, error: refused };
  const prompt = promptOf(input);
  if (prompt && 'code' in prompt) return { ok: false, error: prompt };
  const resolutions = resolutionsOf(input);
  if (!Array.isArray(resolutions)) return { ok: false, error: resolutions as AgUiInputError };
  const props = HubProps.safeParse(hubPropsOf(input.forwardedProps));
  if (!props.success) return { ok: false, error: fromIssues(props.error.issues, `$.forwardedProps["${HUB_NAMESPACE}"]`) };
  return {
    ok: true,
    request: { sessionId: input.threadId, runId: input.runId, prompt, resolutions, busyPolicy: props.data.busyPolicy, context: input.context ?? [] },
  };
}

/**
 * What a decoded run does against the session as it stands (`view`): answers approvals when it
 * resumes; submits its prompt as turn `runId` unless the hub already has that message (a
 * reconnect after a dropped stream resends it: then the run follows that message's turn);
 * otherwise watches the turn in progress, if any.
 */
export function planRun(request: RunRequest, view: AgUiView): RunPlan {
  if (request.resolutions.length > 0) {
    const first = view.pending[request.resolutions[0]?.approvalId ?? ''];
    return { kind: 'resume', commands: request.resolutions, follow: first?.turnId ?? view.harness.activeTurnId };
  }
  const prompt = request.prompt;
  const known = prompt && (view.submitted[prompt.messageId] ?? hubTurnOfMessage(view, prompt.messageId));
  if (known) return { kind: 'attach', follow: known };
  if (!prompt) return { kind: 'attach', follow: view.harness.activeTurnId };
  const command = SubmitTurn.parse({
    type: 'SubmitTurn',
    sessionId: request.sessionId,
    turnId: request.runId,
    prompt: prompt.text,
    context: { [CONTEXT_KEY]: { messageId: prompt.messageId, ...(request.context.length > 0 ? { context: request.context } : {}) } },
    busyPolicy: request.busyPolicy,
  });
  return { kind: 'submit', command, commandId: `ag-ui:${request.sessionId}:${request.runId}`, follow: request.runId };
}

/** A user message the hub wrote (a MESSAGES_SNAPSHOT gave the client the hub's ids): its turn. */
function hubTurnOfMessage(view: AgUiView, messageId: string): string | undefined {
  const index = view.harness.messageIndex[messageId];
  const message = index === undefined ? undefined : view.harness.state.messages[index];
  return message?.role === 'user' ? message.turnId : undefined;
}

function checkInput(input: RunAgentInput): AgUiInputError | null {
  if (!SESSION_ID_PATTERN.test(input.threadId))
    return agUiError('INVALID_INPUT', 'threadId (the hub session) must be 1-128 of [A-Za-z0-9._:@-], starting with a letter or digit.', '$.threadId');
  if (!SESSION_ID_PATTERN.test(input.runId))
    return agUiError('INVALID_INPUT', 'runId (the hub turn) must be 1-128 of [A-Za-z0-9._:@-], starting with a letter or digit.', '$.runId');
  const version = input.protocolVersion;
  if (version !== undefined && version.split('.')[0] !== MAJOR) {
    return agUiError('UNSUPPORTED_PROTOCOL_VERSION', `protocolVersion ${version} is not served: this hub speaks AG-UI 1.0.`, '$.protocolVersion');
  }
  const tools = input.tools ?? [];
  if (tools.length > 0) {
    const names = tools
      .map((t) => t.name)
      .slice(0, 5)
      .join(', ');
    return agUiError(
      'CLIENT_TOOLS_UNSUPPORTED',
      `Client-side tools are not supported (${names}): the hub's agent runs its own tools on the server and cannot call back into the frontend. Send "tools": [].`,
      '$.tools[0]',
    );
  }
  return null;
}

type Prompt = RunRequest['prompt'];

function promptOf(input: RunAgentInput): Prompt | AgUiInputError {
  const index = input.messages.length - 1;
  const last = input.messages[index];
  if (!last || last.role !== 'user') return null;
  const path = `$.messages[${index}].content`;
  const content: unknown = last.content;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const other = content.findIndex((p: { type?: unknown }) => p.type !== 'text');
    if (other >= 0) return agUiError('UNSUPPORTED_CONTENT', "Only text parts are accepted in a prompt: the hub's turns carry text.", `${path}[${other}]`);
    text = content.map((p: { text?: unknown }) => String(p.text ?? '')).join('');
  } else return agUiError('INVALID_INPUT', 'A user message needs content.', path);
  if (text.trim() === '') return agUiError('INVALID_INPUT', 'The prompt (the last user message) is empty.', path);
  return { messageId: last.id, text };
}

function resolutionsOf(input: RunAgentInput): ResolveApproval[] | AgUiInputError {
  const out: ResolveApproval[] = [];
  for (const [i, entry] of (input.resume ?? []).entries()) {
    const path = `$.resume[${i}]`;
    let decision: ApprovalAnswer;
    if (entry.status === 'cancelled') decision = { decision: 'denied', reason: 'cancelled by the client' };
    else {
      const answer = ApprovalAnswer.safeParse(entry.payload);
      if (!answer.success)
        return agUiError(
          'INVALID_INPUT',
          'A resolved approval interrupt needs payload {"decision": "approved" | "denied", "reason"?: string}.',
          `${path}.payload`,
        );
      decision = answer.data;
    }
    const command = ResolveApproval.safeParse({
      type: 'ResolveApproval',
      sessionId: input.threadId,
      approvalId: entry.interruptId,
      decision: decision.decision,
      reason: decision.reason ?? null,
    });
    if (!command.success) return fromIssues(command.error.issues, path);
    out.push(command.data);
  }
  return out;
}

function hubPropsOf(forwarded: unknown): unknown {
  if (typeof forwarded !== 'object' || forwarded === null) return {};
  return (forwarded as Record<string, unknown>)[HUB_NAMESPACE] ?? {};
}

function fromIssues(issues: readonly z.core.$ZodIssue[], prefix = '$'): AgUiInputError {
  const issue = issues[0];
  const path = (issue?.path ?? []).reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${String(k)}`), prefix);
  return agUiError('INVALID_INPUT', `${path}: ${issue?.message ?? 'invalid'}`, path);
}
