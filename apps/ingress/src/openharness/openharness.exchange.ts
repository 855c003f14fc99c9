import { Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '@hub/auth';
import { assertNever, isDomainError, retryAfterMsOf, sessionStreamId, type HubCommand, type HubEvent } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import {
  decode,
  encodeError,
  encodeReply,
  wireError,
  wireErrorFromDomain,
  type DecodedRequest,
  type WireError,
  type WireReply,
} from '@hub/protocol-openharness';
import { correlationIdFrom, runWithCorrelation } from '@hub/telemetry';
import type { SessionAccess } from '../auth/session-access';
import type { CommandService } from '../commands/command.service';
import type { TurnOutcomes } from '../streams/turn-outcome.service';
import type { ReplyCache } from './reply-cache';

/** What the HTTP request adds to the body. */
export interface HttpContext {
  /** `X-Correlation-ID` as sent (the body's `correlation_id` wins over it). */
  correlationHeader?: string;
  /** When the request arrived (`performance.now()`), for `engine_latency_ms`. */
  startedAt: number;
}

/**
 * One OpenHarness request, end to end: decode → dispatch → wait for the turn → encode. The
 * first reply to a shell's `request_id` is kept (see ReplyCache) and returned for repeats.
 */
export class OpenHarnessExchange {
  private readonly log = new Logger('openharness');

  constructor(
    private readonly commands: CommandService,
    private readonly outcomes: TurnOutcomes,
    private readonly store: EventStore,
    private readonly cache: ReplyCache,
    private readonly access: SessionAccess,
  ) {}

  async handle(body: unknown, principal: Principal, http: HttpContext): Promise<{ reply: WireReply; correlationId: string }> {
    const decoded = decode(body, { tenantId: principal.tenantId, newId: () => randomUUID() });
    const correlationId = effectiveCorrelationId(decoded.ok ? decoded.request.echo.correlation_id : undefined, http.correlationHeader);
    if (!decoded.ok) {
      // Bad input is the shell's problem (debug); a tenant mismatch may be probing (warn).
      const line = JSON.stringify({ msg: 'openharness request refused', code: decoded.error.code, request_id: decoded.echo.request_id });
      if (decoded.error.code === 'forbidden') this.log.warn(line);
      else this.log.debug(line);
      return { reply: encodeError(decoded.error, decoded.echo), correlationId };
    }
    // A correlation id the shell sent only as a header is echoed in the body too.
    const echoed = decoded.request.echo.correlation_id ?? (http.correlationHeader?.trim() === correlationId ? correlationId : undefined);
    const r = { ...decoded.request, echo: { ...decoded.request.echo, ...(echoed ? { correlation_id: echoed } : {}) } };
    const tenantId = principal.tenantId;
    const fingerprint = requestFingerprint(r);
    const first = r.idempotent ? await this.cache.get(tenantId, r.requestId, fingerprint) : null;
    if (first === 'mismatch') return { reply: reusedRequestId(r), correlationId };
    if (first) return { reply: first, correlationId };
    const reply = await runWithCorrelation(correlationId, () => this.run(r, principal, correlationId, http.startedAt));
    // Debug level: log fields hold no auth, no intent and no environment values (see decode).
    this.log.debug(JSON.stringify({ msg: 'openharness request', ...r.logFields, status: reply.httpStatus, code: reply.body.response.error?.code }));
    const cacheable = r.idempotent && !(reply.body.response.status === 'error' && reply.body.response.error?.retryable);
    const kept = cacheable ? await this.cache.keepFirst(tenantId, r.requestId, fingerprint, reply) : reply;
    return { reply: kept === 'mismatch' ? reusedRequestId(r) : kept, correlationId };
  }

  async close(): Promise<void> {
    await this.cache.close();
  }

  private async run(r: DecodedRequest, principal: Principal, correlationId: string, startedAt: number): Promise<WireReply> {
    const fail = (e: WireError) => encodeError(e, r.echo, { capabilities: r.capabilities, latencyMs: elapsed(startedAt) });
    const action = r.action;
    let after = 0;
    // A collect appends nothing, so no command checks its key: a continuation token is not
    // signed, and a client key must not read another key's run by naming its ids.
    if (action.kind === 'collect') {
      const refused = await this.access.check(principal, r.sessionId, 'read').then(
        () => null,
        (e: unknown) => (isDomainError(e) ? wireErrorFromDomain(e.code, e.message) : Promise.reject(e)),
      );
      if (refused) return fail(refused);
    }
    if (action.kind !== 'collect') {
      const dispatched = await this.dispatch(action.command, principal, r, correlationId);
      if ('refused' in dispatched) return fail(dispatched.refused);
      after = dispatched.after;
    }
    const turnId = await this.turnOf(action, principal.tenantId, r.sessionId);
    if (!turnId) return fail(wireError('not_found', 'No such run in this session.', { details: { field: 'request.context.continuation' } }));
    // The reply reflects this request's own command (an answered approval is not still pending).
    const outcome = await this.outcomes.wait(principal.tenantId, r.sessionId, turnId, r.waitMs, { after });
    const delivered = action.kind === 'submit' ? 0 : action.delivered;
    return encodeReply(outcome, {
      echo: r.echo,
      capabilities: r.capabilities,
      sessionId: r.sessionId,
      turnId,
      delivered,
      nowMs: Date.now(),
      latencyMs: elapsed(startedAt),
    });
  }

  /**
   * The hub's refusal of the command as a wire error, or where what it appended ends (the
   * highest global position; 0 when it appended nothing).
   */
  private async dispatch(
    command: HubCommand,
    principal: Principal,
    r: DecodedRequest,
    correlationId: string,
  ): Promise<{ refused: WireError } | { after: number }> {
    try {
      const outcome = await this.commands.dispatch(command, principal, { protocol: 'openharness', correlationId, commandId: r.commandId, extra: r.metadata });
      if (!outcome.ok) return { refused: wireErrorFromDomain(outcome.code, outcome.message) };
      return { after: Math.max(0, ...outcome.events.map((e) => e.globalPosition)) };
    } catch (e) {
      // The command was not decided in time: the hub is overloaded, not the turn slow.
      if (isDomainError(e) && e.code === 'TIMEOUT')
        return { refused: wireError('engine_unavailable', 'The hub did not take the request in time.', { retryable: true }) };
      // A used-up tenant limit: 429 rate_limited with its wait (retryable, so never kept as the request's reply).
      if (isDomainError(e) && e.code === 'RATE_LIMITED') return { refused: wireErrorFromDomain(e.code, e.message, retryAfterMsOf(e)) };
      throw e;
    }
  }

  /** The turn to wait for; null when a continuation names a run this tenant does not have. */
  private async turnOf(action: DecodedRequest['action'], tenantId: string, sessionId: string): Promise<string | null> {
    switch (action.kind) {
      case 'submit':
        return action.command.turnId;
      case 'resolve':
        return action.turnId ?? (await this.turnOfApproval(tenantId, sessionId, action.command.approvalId));
      case 'collect':
        return (await this.turnExists(tenantId, sessionId, action.turnId)) ? action.turnId : null;
      default:
        return assertNever(action, 'openharness action');
    }
  }

  private async sessionEvents(tenantId: string, sessionId: string): Promise<HubEvent[]> {
    return (await this.store.readStream<HubEvent>(tenantId, sessionStreamId(sessionId))).events as HubEvent[];
  }

  /** An approval raised elsewhere (another protocol): its turn, from the log. */
  private async turnOfApproval(tenantId: string, sessionId: string, approvalId: string): Promise<string | null> {
    const asked = (await this.sessionEvents(tenantId, sessionId)).find((e) => e.type === 'ApprovalRequested' && e.data.approvalId === approvalId);
    return asked?.type === 'ApprovalRequested' ? asked.data.turnId : null;
  }

  private async turnExists(tenantId: string, sessionId: string, turnId: string): Promise<boolean> {
    return (await this.sessionEvents(tenantId, sessionId)).some((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
  }
}

const elapsed = (startedAt: number) => Math.max(0, Math.round(performance.now() - startedAt));

/** The body's `correlation_id`, else `X-Correlation-ID`, each only when usable as a header; else a new one. */
function effectiveCorrelationId(fromBody: string | undefined, fromHeader: string | undefined): string {
  for (const candidate of [fromBody, fromHeader]) {
    if (candidate !== undefined && correlationIdFrom(candidate) === candidate.trim()) return candidate.trim();
  }
  return correlationIdFrom(undefined);
}

/** What makes two requests with one `request_id` the same request: the command they decode to (or the run they collect). */
function requestFingerprint(r: DecodedRequest): string {
  const what = r.action.kind === 'collect' ? { collect: r.action.turnId } : r.action.command;
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

function reusedRequestId(r: DecodedRequest): WireReply {
  return encodeError(wireErrorFromDomain('INVALID_COMMAND', `request_id ${r.requestId} was already used with a different request; send a new id`), r.echo, {
    capabilities: r.capabilities,
    latencyMs: 0,
  });
}
