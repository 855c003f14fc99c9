import { randomUUID } from 'node:crypto';
import { OWN_SESSIONS_ONLY, requireGrant } from '@hub/auth';
import {
  AcpRpcError,
  extensionOptIn,
  initializeResult,
  promptText,
  RPC,
  rpcNotification,
  SESSION_MODES,
  type AgentMethod,
  type ParamsOf,
} from '@hub/protocol-acp';
import type { AcpConnection } from './acp.connection';
import { live, LIVE_METHODS } from './acp-live';
import { inject, INJECT_METHODS } from './acp-inject';
import { mcpContext, sessionMcpServers } from './acp-mcp';
import { reminders, REMIND_METHODS } from './acp-remind';
import { loadReplaySpeed } from './acp-replay';
import { createSession, listSessions } from './acp-sessions';

/** The extension methods (Harn proposals) this hub serves; advertised at `initialize`. */
export const EXTENSION_METHODS: readonly string[] = [...LIVE_METHODS, ...INJECT_METHODS, ...REMIND_METHODS];

const modes = (current: string) => ({ currentModeId: current, availableModes: SESSION_MODES.map((m) => ({ ...m })) });

/** One handler per ACP agent method: a method added to the schema does not compile until it has one. */
type MethodTable = { [M in AgentMethod]: (p: ParamsOf<M>) => Promise<unknown> };

/** The ACP agent methods, each mapped onto hub commands and session reads. */
export class AcpHandlers {
  private readonly methods: MethodTable = {
    initialize: async (p) => {
      this.c.clientInfo = p.clientInfo ?? null;
      this.c.extensions = extensionOptIn(p.clientCapabilities);
      return initializeResult({ version: '0.1.0', extensionMethods: EXTENSION_METHODS, mcpHttp: (this.c.deps.mcpAllow.http ?? []).length > 0 });
    },
    // The socket is already authenticated with the hub API key (upgrade header).
    authenticate: async () => ({}),
    'session/new': (p) => this.newSession(p),
    'session/load': (p) => this.load(p),
    'session/list': (p) => this.list(p),
    'session/resume': (p) => this.resume(p),
    'session/close': (p) => this.closeSession(p),
    'session/prompt': (p) => this.prompt(p),
    'session/cancel': (p) => this.cancel(p),
    'session/set_mode': (p) => this.setMode(p),
    'session/set_config_option': (p) => Promise.reject(new AcpRpcError(RPC.INVALID_PARAMS, `unknown config option ${p.configId}: this agent has none`)),
  };

  constructor(private readonly c: AcpConnection) {}

  hasExtension(method: string): boolean {
    return EXTENSION_METHODS.includes(method);
  }

  extension(method: string, params: unknown): Promise<unknown> {
    if ((INJECT_METHODS as readonly string[]).includes(method)) return inject(this.c, method, params);
    if ((REMIND_METHODS as readonly string[]).includes(method)) return reminders(this.c, method, params);
    return live(this.c, method, params);
  }

  handle<M extends AgentMethod>(method: M, params: ParamsOf<M>): Promise<unknown> {
    return (this.methods[method] as (p: ParamsOf<M>) => Promise<unknown>)(params);
  }

  private async newSession(p: ParamsOf<'session/new'>) {
    // A new session is the start of a conversation: the roles that may submit turns may.
    requireGrant(this.c.principal.role, 'submit');
    const mcpServers = sessionMcpServers(p.mcpServers, this.c.deps.mcpAllow);
    await this.c.deps.commands.admitNewSession(this.c.principal, null);
    // Recorded at once (with its cwd): the session exists, and is listed, before its first prompt.
    const sessionId = await createSession(this.c.deps.store, this.c.principal, p.cwd, this.c.correlationId);
    const s = await this.c.session(sessionId);
    // A new session has no servers until some are recorded: an empty list needs no fact.
    if (mcpServers.length > 0) await this.c.setMcpServers(sessionId, mcpServers);
    return { sessionId, modes: modes(s.mode) };
  }

  /**
   * The session's history as `session/update`, then the answer. With `_meta.replay` (acp-replay.ts)
   * the history is paced at its recorded time / speed; nothing is dispatched because of it.
   */
  private async load(p: ParamsOf<'session/load'>) {
    const mcpServers = sessionMcpServers(p.mcpServers, this.c.deps.mcpAllow);
    const speed = loadReplaySpeed(p._meta);
    if (this.c.sessions.has(p.sessionId)) {
      // Checked before the open one is closed, so a refused load leaves it as it was; a session
      // not open here is checked by c.session() as it opens it.
      await this.c.assertReadable(p.sessionId);
      await this.c.assertExists(p.sessionId);
    }
    const open = this.c.sessions.get(p.sessionId);
    if (open) {
      await open.close();
      this.c.sessions.delete(p.sessionId);
    }
    const s = await this.c.session(p.sessionId, speed === undefined ? true : { speed, store: this.c.deps.store });
    await this.c.setMcpServers(p.sessionId, mcpServers);
    return { modes: modes(s.mode) };
  }

  private async resume(p: ParamsOf<'session/resume'>) {
    const mcpServers = p.mcpServers ? sessionMcpServers(p.mcpServers, this.c.deps.mcpAllow) : null;
    // c.session() checks that this key may read the session before it opens it here.
    const s = await this.c.session(p.sessionId);
    if (mcpServers) await this.c.setMcpServers(p.sessionId, mcpServers);
    return { modes: modes(s.mode) };
  }

  private async list(p: ParamsOf<'session/list'>) {
    const { principal } = this.c;
    requireGrant(principal.role, 'read');
    // A client key lists the sessions it opened only (issue 16); other roles read every session.
    const openedBy = OWN_SESSIONS_ONLY.has(principal.role) ? principal.keyPrefix : undefined;
    return { sessions: await listSessions(this.c.deps.store, principal.tenantId, p.cwd ?? null, openedBy) };
  }

  private async closeSession(p: ParamsOf<'session/close'>) {
    const s = this.c.sessions.get(p.sessionId);
    if (!s) throw new AcpRpcError(RPC.RESOURCE_NOT_FOUND, `session ${p.sessionId} is not open on this connection`);
    this.c.sessions.delete(p.sessionId);
    await s.close();
    return {};
  }

  private async prompt(p: ParamsOf<'session/prompt'>) {
    const text = promptText(p.prompt);
    if (!text.trim()) throw new AcpRpcError(RPC.INVALID_PARAMS, 'prompt has no text');
    // The session must exist (a prompt never creates one), then this client must control it.
    const s = await this.c.session(p.sessionId);
    const servers = await this.c.assertControl(p.sessionId);
    const turnId = `acp-${p.messageId ?? randomUUID()}`;
    const ended = s.waitForTurn(turnId);
    await this.c.dispatch(
      {
        type: 'SubmitTurn',
        sessionId: p.sessionId,
        turnId,
        prompt: text,
        context: { acp: { mcpServers: servers.map((m) => m.name), mode: s.mode }, ...mcpContext(servers) },
        busyPolicy: 'reject',
      },
      `acp:${p.sessionId}:${turnId}`,
    );
    const end = await ended;
    if (!end.ok) throw new AcpRpcError(RPC.INTERNAL_ERROR, end.message, { code: end.code, retryable: end.retryable });
    return { stopReason: end.stopReason, _meta: { harn: { turnId } } };
  }

  private async cancel(p: ParamsOf<'session/cancel'>) {
    await this.c.assertReadable(p.sessionId);
    await this.c.assertExists(p.sessionId);
    await this.c.assertControl(p.sessionId);
    await this.c.dispatch({ type: 'CancelTurn', sessionId: p.sessionId, reason: 'user' }, `acp:cancel:${randomUUID()}`);
    return {};
  }

  private async setMode(p: ParamsOf<'session/set_mode'>) {
    if (!SESSION_MODES.some((m) => m.id === p.modeId)) throw new AcpRpcError(RPC.INVALID_PARAMS, `unknown mode ${p.modeId}`);
    const s = await this.c.session(p.sessionId);
    s.mode = p.modeId;
    this.c.send(rpcNotification('session/update', { sessionId: p.sessionId, update: { sessionUpdate: 'current_mode_update', currentModeId: p.modeId } }));
    return {};
  }
}
