import { Injectable } from '@nestjs/common';
import { HubCommand, isDomainError, sessionStreamId, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import {
  ackLine,
  errorLine,
  hubSessionIdOf,
  turnOfRequest,
  ZENE_CODE_OF_DOMAIN,
  type CancelRequest,
  type ZeneErrorCode,
  type ZeneRequest,
} from '@hub/protocol-zene';
import { CommandService } from '../commands/command.service';
import { refusal, RunReplies, type ZeneLine, type ZeneMode } from './reply-writer';
import { ZeneRunService, type ZeneCall } from './zene-run.service';

/**
 * The zene host protocol behind `POST /v1/zene` (and so behind `hub host`): one decoded request
 * in, its lines out through `write`. `run` in both modes; `ping`, `cancel` and `session_close`
 * are protocol-mode requests (bridge-compat is run-only, as upstream's one-shot path).
 */
@Injectable()
export class ZeneService {
  constructor(
    private readonly runs: ZeneRunService,
    private readonly commands: CommandService,
    private readonly store: EventStore,
  ) {}

  /** `onLimited`: a run refused for a used-up tenant limit, before any line was written (HTTP: 429 + Retry-After). */
  async handle(
    request: ZeneRequest,
    call: ZeneCall,
    mode: ZeneMode,
    write: (line: ZeneLine) => void,
    onLimited?: (retryAfterS: number) => void,
  ): Promise<void> {
    if (request.type === 'run') return this.runs.run(request, call, new RunReplies(mode, request, write, onLimited));
    const ids = { request_id: request.request_id, session_id: request.session_id ?? null };
    if (mode === 'bridge') {
      const message = `bridge-compat mode answers run requests only; send ${request.type} in protocol mode`;
      return write(refusal('bridge', ids, 'INVALID_REQUEST', message));
    }
    switch (request.type) {
      case 'ping':
        return write(ackLine(ids, 'PONG', Date.now()));
      case 'session_close':
        // Sessions live in the log and cost nothing while idle: there is nothing to release.
        return write(ackLine(ids, 'SESSION_CLOSED', Date.now()));
      case 'cancel':
        return write(await this.cancel(request, call));
      default: {
        const unhandled: never = request;
        throw new Error(`unhandled zene request ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /** Cancels the turn a running request started; its own `final` then says `CANCELED`. */
  private async cancel(request: CancelRequest, call: ZeneCall): Promise<ZeneLine> {
    const target = (request.target_request_id ?? request.cancel_request_id) as string;
    const ids = { request_id: request.request_id, session_id: request.session_id ?? null };
    const fail = (code: ZeneErrorCode, message: string) => errorLine(ids, code, message, Date.now());
    if (!request.session_id) return fail('INVALID_REQUEST', 'cancel request requires session_id (the session of the target request)');
    const sessionId = hubSessionIdOf(request.session_id);
    const { events } = await this.store.readStream<HubEvent>(call.principal.tenantId, sessionStreamId(sessionId));
    const turn = turnOfRequest(events, target);
    if (!turn || turn.ended) return fail('INVALID_REQUEST', 'target_request_id is not running');
    try {
      const command = HubCommand.parse({ type: 'CancelTurn', sessionId, turnId: turn.turnId, reason: 'user' });
      const outcome = await this.commands.dispatch(command, call.principal, {
        protocol: 'zene',
        correlationId: call.correlationId,
        commandId: `zene:cancel:${turn.turnId}:${request.request_id}`,
      });
      if (!outcome.ok)
        return fail(
          outcome.code === 'NO_ACTIVE_TURN' ? 'INVALID_REQUEST' : ZENE_CODE_OF_DOMAIN[outcome.code],
          outcome.code === 'NO_ACTIVE_TURN' ? 'target_request_id is not running' : outcome.message,
        );
    } catch (e) {
      return fail(isDomainError(e) ? ZENE_CODE_OF_DOMAIN[e.code] : 'INTERNAL', isDomainError(e) ? e.message : 'cancel failed');
    }
    return ackLine(ids, 'CANCEL_ACCEPTED', Date.now(), { target_request_id: target });
  }
}
