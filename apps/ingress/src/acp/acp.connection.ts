import type { McpServerSpec } from '@hub/agent';
import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { actorOf, mayDo, type Principal } from '@hub/auth';
import { actorIdentity, isDomainError, retryAfterMsOf, SESSION_ID_PATTERN, whyNotEligible, type HubCommand } from '@hub/domain';
import {
  acceptsUpdate,
  AcpRpcError,
  detach,
  isAgentMethod,
  optInAfter,
  parseFrame,
  parseParams,
  RPC,
  rpcError,
  rpcResult,
  withoutApprove,
  type AgentMethod,
  type ExtensionOptIn,
  type Incoming,
  type ParamsOf,
} from '@hub/protocol-acp';
import { AcpSession, type LiveFacts, type PacedReplay } from './acp-session';
import { sessionExists } from './acp-sessions';
import { PermissionRequests, type PermissionDecision } from './acp-permissions';
import type { AcpDeps } from './acp.deps';
import { liveStreamId, type LiveControl, type LiveRequest } from './live-registry';
import { publicErrorMessage } from '../transport/public-error';
import { ATTR, contextFromTraceparent, failRequestSpans, runWithCorrelation, withContext, withSpan, type TraceContext } from '@hub/telemetry';

/**
 * One ACP client on `WS /v1/acp` (or `bin/hub acp` behind it): JSON-RPC frames in, handled one
 * by one per method; `session/update` and `session/request_permission` out. A bad frame gets a
 * JSON-RPC error and never closes the connection.
 */
/**
 * What a connection hands its requests to (`AcpHandlers`, acp.handlers.ts). Given by whoever makes
 * the connection (the gateway), so the handlers may see the connection without the two files
 * importing each other.
 */
export interface AcpMethodHandlers {
  handle<M extends AgentMethod>(method: M, params: ParamsOf<M>): Promise<unknown>;
  hasExtension(method: string): boolean;
  extension(method: string, params: unknown): Promise<unknown>;
}

export class AcpConnection {
  readonly sessions = new Map<string, AcpSession>();
  readonly permissions: PermissionRequests;
  clientInfo: unknown = null;
  /** Harn session-update extensions the client asked for at `initialize` (none until then). */
  extensions: ExtensionOptIn = new Set();
  /** The live-session client id this connection attached as, per session. */
  readonly attached = new Map<string, string>();
  private readonly handlers: AcpMethodHandlers;
  private closed = false;

  constructor(
    /** `catchUp`: a frame of history the client asked for (slow-consumer.ts). */
    private readonly out: (msg: unknown, catchUp?: boolean) => void,
    readonly principal: Principal,
    readonly deps: AcpDeps,
    readonly log: Logger,
    readonly correlationId: string,
    handlersFor: (c: AcpConnection) => AcpMethodHandlers,
    /** From the upgrade request's `traceparent`: every request on this socket continues that trace. */
    private readonly traceContext: TraceContext = contextFromTraceparent(undefined),
  ) {
    this.permissions = new PermissionRequests(
      (m) => this.send(m),
      (d) => void this.resolveApproval(d),
      deps.permissionTimeoutMs,
    );
    this.handlers = handlersFor(this);
  }

  /** Who this connection acts for, and its correlation id: what every fact it records names. */
  get request(): LiveRequest {
    return { correlationId: this.correlationId, actor: actorOf(this.principal) };
  }

  send(msg: unknown, catchUp = false): void {
    if (!this.closed) this.out(msg, catchUp);
  }

  async onFrame(raw: string): Promise<void> {
    const msg: Incoming = parseFrame(raw);
    switch (msg.kind) {
      case 'invalid':
        return this.send(rpcError(msg.id, msg.error));
      case 'response':
        if (!this.permissions.answer(msg.id, msg.result, msg.error)) this.log.warn(`acp: response to unknown request ${msg.id}`);
        return;
      case 'notification':
        return this.onNotification(msg.method, msg.params);
      case 'request':
        return this.onRequest(msg.id, msg.method, msg.params);
    }
  }

  private onRequest(id: string | number, method: string, params: unknown): Promise<void> {
    // One span per request, in the caller's trace, so a prompt's command and turn hang under it.
    const attrs = { [ATTR.TENANT_ID]: this.principal.tenantId, [ATTR.PROTOCOL]: 'acp', [ATTR.METHOD]: method };
    return withContext(this.traceContext, () =>
      runWithCorrelation(this.correlationId, () =>
        withSpan('acp request', attrs, async () => {
          try {
            const result = await this.route(method, params);
            this.send(rpcResult(id, result ?? {}));
          } catch (e) {
            failRequestSpans(isDomainError(e) ? e.code : e instanceof AcpRpcError ? `RPC_${e.code}` : 'INTERNAL', e instanceof Error ? e.message : String(e));
            this.send(rpcError(id, toRpcError(e, this.log, this.correlationId)));
          }
        }),
      ),
    );
  }

  private async route(method: string, params: unknown): Promise<unknown> {
    if (isAgentMethod(method)) return this.handlers.handle(method, checked(method, params));
    if (this.handlers.hasExtension(method)) {
      // Calling a Harn method is the opt-in to the updates it promises (see protocol-acp extensions.ts).
      this.extensions = optInAfter(this.extensions, method);
      return this.handlers.extension(method, params);
    }
    throw new AcpRpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
  }

  private async onNotification(method: string, params: unknown): Promise<void> {
    if (method !== 'session/cancel') return; // ACP: unknown notifications are ignored
    try {
      await this.handlers.handle('session/cancel', checked('session/cancel', params));
    } catch (e) {
      this.log.warn(`acp: session/cancel failed: ${(e as Error).message}`);
    }
  }

  /** Records the session's MCP servers in the log (see LiveRegistry). */
  setMcpServers(sessionId: string, servers: readonly McpServerSpec[]): Promise<void> {
    return this.deps.live.setMcpServers(this.principal.tenantId, sessionId, servers, this.request);
  }

  /** Sends a hub command; a refusal becomes a JSON-RPC error carrying the hub's code. */
  async dispatch(command: HubCommand, commandId: string): Promise<void> {
    const outcome = await this.deps.commands.dispatch(command, this.principal, {
      protocol: 'acp',
      correlationId: this.correlationId,
      commandId,
      extra: { acpClient: clientName(this.clientInfo) },
    });
    if (!outcome.ok)
      throw new AcpRpcError(outcome.code === 'SESSION_NOT_FOUND' ? RPC.RESOURCE_NOT_FOUND : RPC.INVALID_PARAMS, outcome.message, { code: outcome.code });
  }

  /**
   * ACP's resource-not-found unless this key may read the session: another key's session is, to
   * a client key, exactly a session that does not exist (issue 16), the same error and text.
   */
  async assertReadable(sessionId: string): Promise<void> {
    try {
      await this.deps.access.check(this.principal, sessionId, 'read');
    } catch (e) {
      if (isDomainError(e) && e.code === 'SESSION_NOT_FOUND') throw notFound(sessionId);
      throw e;
    }
  }

  /** ACP's resource-not-found unless the session exists (see acp-sessions.ts). */
  async assertExists(sessionId: string): Promise<void> {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new AcpRpcError(RPC.INVALID_PARAMS, 'sessionId: 1-128 of [A-Za-z0-9._:@-]');
    if (!(await sessionExists(this.deps.store, this.principal.tenantId, sessionId))) {
      throw notFound(sessionId);
    }
  }

  /**
   * The session opened on this connection (opening it, without replay, if needed); it must exist.
   * `replay` (when it is opened here): its history as updates first, at once or paced.
   */
  async session(sessionId: string, replay: boolean | PacedReplay = false): Promise<AcpSession> {
    const known = this.sessions.get(sessionId);
    if (known) return known;
    // Opening a session follows it on this connection: only a key that may read it.
    await this.assertReadable(sessionId);
    await this.assertExists(sessionId);
    const s = new AcpSession(sessionId, this.principal.tenantId, {
      send: (m, catchUp) => this.send(m, catchUp),
      accepts: (kind) => acceptsUpdate(this.extensions, kind),
      askPermission: (approvalId, p) => void this.askPermission(s, approvalId, p),
      withdrawPermission: (approvalId) => this.permissions.withdraw(approvalId),
    });
    this.sessions.set(sessionId, s);
    try {
      await s.open(this.deps.streams, replay, this.liveFacts(sessionId));
    } catch (e) {
      // Not left open half-way (e.g. a paced replay stopped by the connection closing).
      if (this.sessions.get(sessionId) === s) this.sessions.delete(sessionId);
      await s.close();
      throw e;
    }
    s.start();
    return s;
  }

  /** The session's live-session facts, from the log (any ingress instance may have recorded them). */
  private liveFacts(sessionId: string): LiveFacts {
    const { tenantId } = this.principal;
    const streamId = liveStreamId(sessionId);
    return {
      read: async () => (await this.deps.store.readStream(tenantId, streamId)).events,
      follow: (after, onFacts) =>
        this.deps.subscriber.subscribe({ tenantId, streamId, after }, onFacts, (e) =>
          this.log.warn(`acp: live facts of ${sessionId}: ${(e as Error).message}`),
        ),
    };
  }

  /**
   * Only the live session's controller is asked (spec: permission routing), and only a key whose
   * role may answer approvals (issue 16): a viewer following a session sees the call, not a prompt.
   */
  private async askPermission(s: AcpSession, approvalId: string, params: unknown): Promise<void> {
    if (!mayDo(this.principal.role, 'answer_approval')) return;
    try {
      if (!(await this.mayControl(s.sessionId))) return;
    } catch (e) {
      return void this.log.warn(`acp: approval ${approvalId}: live-session state unreadable, not asked: ${(e as Error).message}`);
    }
    if (s.mode === 'read_only') return void this.resolveApproval({ sessionId: s.sessionId, approvalId, decision: 'denied', reason: 'session is read_only' });
    const may = this.mayAnswer(s, approvalId);
    if (may === 'no') return;
    this.permissions.ask(s.sessionId, approvalId, may === 'deny_only' ? withoutApprove(params) : params);
  }

  /**
   * What this key may answer under the approval's quorum terms (ADR 0048): nothing when the rule
   * names other approvers; only a refusal when it is the requester the rule excludes, or it
   * approved already (a second approval by one key does not count); else either.
   */
  private mayAnswer(s: AcpSession, approvalId: string): 'any' | 'deny_only' | 'no' {
    const terms = s.approvalTerms(approvalId);
    if (!terms?.quorum) return 'any';
    const actor = actorOf(this.principal);
    const voter = { identity: actorIdentity(actor), keyPrefix: actor.type === 'api_key' ? actor.id : undefined, role: actor.role, groups: actor.groups };
    if (whyNotEligible({ ...terms.quorum, requesterMayApprove: true }, voter) !== null) return 'no';
    if (whyNotEligible(terms.quorum, voter) !== null || terms.approvedBy.includes(voter.identity)) return 'deny_only';
    return 'any';
  }

  /**
   * Whether this connection may prompt, cancel, inject or answer permissions on the session, and
   * the session's MCP servers as recorded by whichever connection set them last (one read).
   */
  control(sessionId: string): Promise<LiveControl> {
    return this.deps.live.control(this.principal.tenantId, sessionId, this.attached.get(sessionId) ?? null);
  }

  async mayControl(sessionId: string): Promise<boolean> {
    return (await this.control(sessionId)).allowed;
  }

  /** Refuses a controlling call from an observer (spec: `not_owner_or_not_authorized`); else the session's MCP servers. */
  async assertControl(sessionId: string): Promise<McpServerSpec[]> {
    const c = await this.control(sessionId);
    if (!c.allowed) throw new AcpRpcError(RPC.INVALID_PARAMS, 'only the live session controller may do this', { reason: 'not_owner_or_not_authorized' });
    return c.mcpServers;
  }

  private async resolveApproval(d: PermissionDecision): Promise<void> {
    if (!(await this.mayControl(d.sessionId))) return void this.log.log(`acp: approval ${d.approvalId}: answer from a client that lost control, ignored`);
    try {
      await this.dispatch({ type: 'ResolveApproval', sessionId: d.sessionId, ...this.editable(d) }, `acp:approval:${d.approvalId}:${randomUUID()}`);
    } catch (e) {
      // Another client (or protocol) answered first: the first answer wins.
      this.log.log(`acp: approval ${d.approvalId} not resolved here: ${(e as Error).message}`);
    }
  }

  /**
   * The decision as the hub records it. Rewritten args run only where the hub dispatches the
   * tool itself; a wrapped harness runs its own tools and takes no edited args, so there the
   * grant is refused explicitly (denied, saying why) rather than run with the original args.
   */
  private editable(d: PermissionDecision): { approvalId: string; decision: 'approved' | 'denied'; reason: string | null; input?: Record<string, unknown> } {
    const base = { approvalId: d.approvalId, decision: d.decision, reason: d.reason };
    if (d.input === undefined) return base;
    const executor = this.sessions.get(d.sessionId)?.executorOfApproval(d.approvalId);
    if (executor === 'builtin' || executor?.startsWith('mcp:')) return { ...base, input: d.input };
    return {
      ...base,
      decision: 'denied',
      reason: `refused: rewritten args are not supported for a tool run by ${executor ?? 'an unknown executor'}; answer without args to run the original call`,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.permissions.dispose();
    // A dropped connection detaches its clients (spec: reason "client_exit"), recorded like any detach.
    const at = new Date().toISOString();
    const detaching = [...this.attached].map(([sessionId, clientId]) =>
      this.deps.live
        .apply(
          this.principal.tenantId,
          sessionId,
          (st) => detach(st, clientId),
          () => ({ type: 'AcpClientDetached', data: { clientId, reason: 'client_exit', at } }),
          this.request,
        )
        .catch((e: Error) => this.log.warn(`acp: client_exit of ${clientId} on ${sessionId} not recorded: ${e.message}`)),
    );
    this.attached.clear();
    await Promise.all(detaching);
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
  }
}

function checked<M extends AgentMethod>(method: M, params: unknown) {
  const r = parseParams(method, params);
  if (!r.ok) throw new AcpRpcError(RPC.INVALID_PARAMS, r.message);
  return r.params;
}

function clientName(info: unknown): string | undefined {
  return typeof info === 'object' && info !== null && typeof (info as { name?: unknown }).name === 'string' ? (info as { name: string }).name : undefined;
}

function toRpcError(e: unknown, log: Logger, correlationId: string) {
  if (e instanceof AcpRpcError) return e.toJSON();
  // A domain error's text may quote a queue library or a driver: only client-facing ones go out.
  if (isDomainError(e))
    return { code: RPC.INTERNAL_ERROR, message: publicErrorMessage(e, log, 'acp: handler', correlationId), data: { code: e.code, ...retryAfterOf(e) } };
  log.error(`acp: handler failed: ${(e as Error).stack}`);
  return { code: RPC.INTERNAL_ERROR, message: 'Internal error' };
}

/** A used-up tenant limit's wait, the one detail of a domain error that goes out (`data.retryAfterMs`). */
function retryAfterOf(e: unknown): { retryAfterMs?: number } {
  const wait = retryAfterMsOf(e);
  return wait === undefined ? {} : { retryAfterMs: wait };
}

/** What ACP answers for a session this key cannot see: the same as for one that does not exist. */
function notFound(sessionId: string): AcpRpcError {
  return new AcpRpcError(RPC.RESOURCE_NOT_FOUND, `session ${sessionId} not found`, { uri: sessionId });
}
