import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '@hub/auth';
import { isDomainError, sessionStreamId, type HubCommand, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import {
  a2aError,
  a2aErrorFromDomain,
  decode,
  encodeError,
  foldTask,
  invalidParams,
  isTerminal,
  rpcResult,
  taskOf,
  type A2aCall,
  type A2aError,
  type JsonRpcId,
  type SendTarget,
  type TaskRef,
  type TaskView,
  type WireError,
} from '@hub/protocol-a2a';
import type { AddressGuard } from '@hub/webhooks';
import type { SessionAccess } from '../auth/session-access';
import type { CommandService } from '../commands/command.service';
import type { TurnOutcomes } from '../streams/turn-outcome.service';
import { A2aPushConfigs, PushRefused } from './a2a-push-configs';
import type { TaskStreamOptions } from './a2a-task-stream';

/** How long a blocking `SendMessage` (and `CancelTask`) waits for the task to end or ask for input; after it the task is answered as it stands (working). */
export const BLOCKING_WAIT_MS = 30_000;

/** What the HTTP request adds to the body. */
export interface A2aHttp {
  correlationId: string;
  /** `A2A-Version` as sent. */
  version?: string;
  /** `Last-Event-ID` as sent: the cursor a resubscribing client got last. */
  lastEventId?: string;
}

/** A unary JSON answer, or a task to follow over SSE. */
export type A2aAnswer =
  | { kind: 'json'; httpStatus: number; body: unknown; retryAfterS?: number; error?: A2aError }
  | { kind: 'stream'; rpcId: JsonRpcId; ref: TaskRef; opts: TaskStreamOptions };

/** Thrown inside a call: answered as that A2A error. */
class Refused extends Error {
  constructor(readonly error: A2aError) {
    super(error.message);
  }
}

/**
 * One A2A JSON-RPC request, end to end: decode → check and dispatch → read the task from the log
 * → encode. The log is the only task store: a task is folded from its session's events whenever
 * it is asked for (ADR 0036).
 */
export class A2aExchange {
  private readonly log = new Logger('a2a');
  private readonly push: A2aPushConfigs;

  constructor(
    private readonly commands: CommandService,
    private readonly outcomes: TurnOutcomes,
    private readonly store: EventStore,
    private readonly access: SessionAccess,
    guard: AddressGuard,
  ) {
    this.push = new A2aPushConfigs(store, access, guard, (p, ref) => this.task(p, ref));
  }

  async handle(body: unknown, principal: Principal, http: A2aHttp): Promise<A2aAnswer> {
    const decoded = decode(body, { newId: () => randomUUID(), ...(http.version === undefined ? {} : { version: http.version }) });
    if (!decoded.ok) {
      this.log.debug(JSON.stringify({ msg: 'a2a request refused', code: decoded.error.kind, id: decoded.id }));
      return errorAnswer(encodeError(decoded.error, decoded.id), decoded.error);
    }
    try {
      const answer = await this.run(decoded.call, decoded.id, principal, http);
      this.log.debug(JSON.stringify({ msg: 'a2a request', method: decoded.method, kind: answer.kind }));
      return answer;
    } catch (e) {
      const error = e instanceof Refused || e instanceof PushRefused ? e.error : isDomainError(e) ? a2aErrorFromDomain(e.code, e.message, e.details) : null;
      if (!error) throw e;
      return errorAnswer(encodeError(error, decoded.id), error);
    }
  }

  private async run(call: A2aCall, id: JsonRpcId, p: Principal, http: A2aHttp): Promise<A2aAnswer> {
    switch (call.kind) {
      case 'send':
        return this.send(call, id, p, http);
      case 'get': {
        const view = await this.task(p, call.task);
        return ok(id, taskOf(view, call.historyLength === undefined ? {} : { historyLength: call.historyLength }));
      }
      case 'cancel':
        return this.cancel(call.task, id, p, http);
      case 'subscribe':
        return this.subscribe(call.task, id, p, http);
      case 'list':
        return ok(id, await this.list(call, p));
      case 'push-set':
      case 'push-get':
      case 'push-list':
      case 'push-delete':
        return ok(id, await this.push.run(call, p, http.correlationId));
    }
  }

  private async send(call: Extract<A2aCall, { kind: 'send' }>, id: JsonRpcId, p: Principal, http: A2aHttp): Promise<A2aAnswer> {
    // A config's URL is checked before anything is dispatched; the config is recorded once the task exists.
    const pushUrl = call.push ? await this.push.checkedUrl(call.push.url) : null;
    const { ref, after } = await this.start(call.target, p, http);
    if (call.push && pushUrl) await this.push.set(p, ref, call.push, pushUrl, http.correlationId);
    if (call.stream) return { kind: 'stream', rpcId: id, ref, opts: { ...(after > 0 ? { after } : {}), endOnInput: true } };
    if (call.blocking) await this.outcomes.wait(p.tenantId, ref.sessionId, ref.turnId, BLOCKING_WAIT_MS, { after });
    const view = await this.task(p, ref);
    return ok(id, { task: taskOf(view, call.historyLength === undefined ? {} : { historyLength: call.historyLength }) });
  }

  /** Dispatches what a message asks: a new turn, or an approval's answer. Where its events end (0: none appended). */
  private async start(target: SendTarget, p: Principal, http: A2aHttp): Promise<{ ref: TaskRef; after: number }> {
    if (target.kind === 'submit') {
      const after = await this.dispatch(target.command, p, http, target.commandId);
      return { ref: { sessionId: target.command.sessionId, turnId: target.command.turnId }, after };
    }
    const view = await this.task(p, target.task);
    const status = view.status?.state;
    if (isTerminal(view))
      throw new Refused(
        a2aError(
          'UNSUPPORTED_OPERATION',
          `the task is ${status?.replace('TASK_STATE_', '').toLowerCase()}: send a new message in its context (contextId ${target.task.sessionId}) without taskId to go on`,
        ),
      );
    if (status !== 'TASK_STATE_INPUT_REQUIRED')
      throw new Refused(a2aError('UNSUPPORTED_OPERATION', 'the task takes no input now (it is not input-required): follow it with SubscribeToTask'));
    if (!target.decision) {
      const a = view.pending[0];
      throw new Refused(
        invalidParams(
          `the task waits for approval ${a.approvalId} (${a.toolName}): answer with a data part {"decision": "approved"|"denied"} or the text "approve" / "deny"`,
          'params.message.parts',
        ),
      );
    }
    const approvalId = target.decision.approvalId ?? (view.pending.length === 1 ? view.pending[0].approvalId : undefined);
    if (!approvalId)
      throw new Refused(
        invalidParams(
          `the task waits for ${view.pending.length} approvals (${view.pending.map((a) => a.approvalId).join(', ')}): name one with approvalId`,
          'params.message.parts',
        ),
      );
    const command: HubCommand = {
      type: 'ResolveApproval',
      sessionId: target.task.sessionId,
      approvalId,
      decision: target.decision.decision,
      reason: target.decision.reason ?? null,
    };
    const after = await this.dispatch(command, p, http, `a2a:${target.task.sessionId}:${target.messageId}`);
    return { ref: target.task, after };
  }

  private async cancel(ref: TaskRef, id: JsonRpcId, p: Principal, http: A2aHttp): Promise<A2aAnswer> {
    const view = await this.task(p, ref);
    if (isTerminal(view))
      throw new Refused(a2aError('TASK_NOT_CANCELABLE', `the task is already ${view.status?.state.replace('TASK_STATE_', '').toLowerCase()}`));
    const after = await this.dispatch(
      { type: 'CancelTurn', sessionId: ref.sessionId, turnId: ref.turnId, reason: 'user' },
      p,
      http,
      `a2a:${ref.sessionId}:cancel:${randomUUID()}`,
    );
    await this.outcomes.wait(p.tenantId, ref.sessionId, ref.turnId, BLOCKING_WAIT_MS, { after });
    return ok(id, taskOf(await this.task(p, ref)));
  }

  private async subscribe(ref: TaskRef, id: JsonRpcId, p: Principal, http: A2aHttp): Promise<A2aAnswer> {
    const cursor = cursorOf(http.lastEventId);
    const events = await this.events(p, ref.sessionId);
    const view = foldTask(events, ref, cursor);
    if (!foldTask(events, ref).status) throw new Refused(a2aError('TASK_NOT_FOUND', 'no such task'));
    // A task that had ended by the client's cursor (or, without one, by now) has nothing to follow (§3.1.6).
    if (isTerminal(cursor === undefined ? foldTask(events, ref) : view))
      throw new Refused(a2aError('UNSUPPORTED_OPERATION', 'the task has ended: read it with GetTask'));
    return { kind: 'stream', rpcId: id, ref, opts: { ...(cursor === undefined ? {} : { after: cursor }), endOnInput: false } };
  }

  private async list(call: Extract<A2aCall, { kind: 'list' }>, p: Principal): Promise<unknown> {
    // Another key's session is, to a client key, one nobody has: no tasks, as for an unknown context.
    const events = await this.events(p, call.sessionId).catch((e: unknown) => (isDomainError(e) && e.code === 'SESSION_NOT_FOUND' ? [] : Promise.reject(e)));
    const turns = [...new Set(events.flatMap((e) => (e.type === 'TurnRequested' ? [e.data.turnId] : [])))].reverse();
    const tasks = turns.slice(0, call.pageSize).map((turnId) =>
      taskOf(foldTask(events, { sessionId: call.sessionId, turnId }), {
        artifacts: call.includeArtifacts,
        ...(call.historyLength === undefined ? {} : { historyLength: call.historyLength }),
      }),
    );
    return { tasks, nextPageToken: '', pageSize: call.pageSize, totalSize: turns.length };
  }

  /** The task folded from the log, after the key's read check; TASK_NOT_FOUND when the session has no such turn. */
  private async task(p: Principal, ref: TaskRef): Promise<TaskView> {
    const view = foldTask(await this.events(p, ref.sessionId), ref);
    if (!view.status) throw new Refused(a2aError('TASK_NOT_FOUND', 'no such task'));
    return view;
  }

  private async events(p: Principal, sessionId: string): Promise<Recorded<HubEvent>[]> {
    await this.access.check(p, sessionId, 'read');
    return (await this.store.readStream<HubEvent>(p.tenantId, sessionStreamId(sessionId))).events as Recorded<HubEvent>[];
  }

  /** The hub's refusal as an A2A error (thrown), or where what it appended ends. */
  private async dispatch(command: HubCommand, p: Principal, http: A2aHttp, commandId: string): Promise<number> {
    const outcome = await this.commands.dispatch(command, p, { protocol: 'a2a', correlationId: http.correlationId, commandId });
    if (!outcome.ok) throw new Refused(a2aErrorFromDomain(outcome.code, outcome.message));
    return Math.max(0, ...outcome.events.map((e) => e.globalPosition));
  }
}

/** `Last-Event-ID`: a global position the hub gave; anything else is refused, never read as 0. */
function cursorOf(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(header.trim()))
    throw new Refused(invalidParams('Last-Event-ID must be the id of an SSE event this hub sent (a non-negative integer)', 'Last-Event-ID'));
  return Number(header.trim());
}

function ok(id: JsonRpcId, result: unknown): A2aAnswer {
  return { kind: 'json', httpStatus: 200, body: rpcResult(id, result) };
}

function errorAnswer(wire: WireError, error: A2aError): A2aAnswer {
  return { kind: 'json', httpStatus: wire.httpStatus, body: wire.body, error, ...(wire.retryAfterS === undefined ? {} : { retryAfterS: wire.retryAfterS }) };
}
