import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { McpServerSpec } from '@hub/agent';
import { DELIVERY_CONTEXT_KEY, sessionStreamId, type HubEvent } from '@hub/domain';
import { AcpRpcError, checkParams, ContentBlock, promptText, RPC } from '@hub/protocol-acp';
import type { AcpConnection } from './acp.connection';
import { trackTurnStatus, type AcpSession, type InjectedTurnStatus } from './acp-session';
import { mcpContext } from './acp-mcp';
import { pendingInjections } from './acp-remind';

// Live input (spec: session/inject): an injected message becomes a queued turn of the session
// (SubmitTurn, busy policy `enqueue`) whose turn id derives from the agent-owned messageId.
// `queue` is delivered when the running turn ends (its turn starts); `steer` carries
// `context.delivery: 'steer'`, so the turn runner delivers it into the running turn at its next
// step boundary (UserMessageInjected, before the next model call), or it starts as its own turn
// when no turn is running. Revoking cancels the queued turn before either happens.

/** The live-input extension methods served here. */
export const INJECT_METHODS = ['session/inject', 'session/revoke_inject', 'session/replace_inject', 'session/pending_injections'] as const;

const InjectParams = z.looseObject({
  sessionId: z.string().min(1),
  mode: z.enum(['steer', 'queue']).default('queue'),
  content: z.union([z.string().min(1), z.array(ContentBlock).min(1)]),
});
const RevokeParams = z.looseObject({ sessionId: z.string().min(1), messageId: z.string().min(1) });
const ReplaceParams = z.looseObject({ sessionId: z.string().min(1), messageId: z.string().min(1), content: InjectParams.shape.content });
const PendingParams = z.looseObject({ sessionId: z.string().min(1) });

/** The turn id of an injected message. */
export const injectTurnId = (messageId: string) => `acp-inject-${messageId}`;

const race = (reason: string, messageId: string) => new AcpRpcError(RPC.INVALID_PARAMS, `inject ${messageId}: ${reason}`, { reason, messageId });

const textOf = (content: string | ContentBlock[]) => (typeof content === 'string' ? content : promptText(content));

/** The context of an injected message's turn (with the session's MCP servers, as a prompt's has). */
const injectContext = (mode: string, messageId: string, s: AcpSession, servers: readonly McpServerSpec[]) => ({
  [DELIVERY_CONTEXT_KEY]: mode === 'steer' ? 'steer' : 'after_turn',
  acp: { inject: mode, messageId, mode: s.mode },
  ...mcpContext(servers),
});

/** Cancels a still-queued inject turn; losing the race to its delivery answers `already_delivered`. */
async function cancelQueued(c: AcpConnection, sessionId: string, turnId: string, messageId: string): Promise<void> {
  try {
    await c.dispatch({ type: 'CancelTurn', sessionId, turnId, reason: 'user' }, `acp:revoke:${turnId}`);
  } catch (e) {
    if (e instanceof AcpRpcError && (e.data as { code?: string } | undefined)?.code === 'NO_ACTIVE_TURN') throw race('already_delivered', messageId);
    throw e;
  }
}

/**
 * The still-queued turn of an injected message, or the race error that says why not. The
 * session's live feed may not have delivered the turn yet (its dispatch has returned, so it is in
 * the log): then the log says.
 */
async function queuedTurn(c: AcpConnection, s: AcpSession, sessionId: string, messageId: string): Promise<string> {
  const turnId = s.injected.get(messageId)?.turnId ?? injectTurnId(messageId);
  const status = s.turnStatus(turnId) ?? (await logTurnStatus(c, sessionId, turnId));
  if (status === 'cancelled') throw race('already_revoked', messageId);
  if (status === null) throw race('unknown_message_id', messageId);
  if (status !== 'queued') throw race('already_delivered', messageId);
  return turnId;
}

async function logTurnStatus(c: AcpConnection, sessionId: string, turnId: string): Promise<InjectedTurnStatus | null> {
  const { events } = await c.deps.store.readStream(c.principal.tenantId, sessionStreamId(sessionId));
  const turns = new Map<string, InjectedTurnStatus>();
  for (const e of events as HubEvent[]) trackTurnStatus(turns, e);
  return turns.get(turnId) ?? null;
}

/** `session/replace_inject`: the queued turn is cancelled and the new text queued under the same messageId (at the back of the queue). */
async function replace(c: AcpConnection, params: unknown) {
  const p = checkParams(ReplaceParams, 'session/replace_inject', params);
  const s = await c.session(p.sessionId);
  const control = await c.control(p.sessionId);
  if (!control.allowed) throw race('not_owner_or_not_authorized', p.messageId);
  const old = await queuedTurn(c, s, p.sessionId, p.messageId);
  const text = textOf(p.content);
  const mode = s.injected.get(p.messageId)?.mode ?? 'queue';
  const turnId = `${injectTurnId(p.messageId)}-r${randomUUID().slice(0, 8)}`;
  await cancelQueued(c, p.sessionId, old, p.messageId);
  await c.dispatch(
    {
      type: 'SubmitTurn',
      sessionId: p.sessionId,
      turnId,
      prompt: text,
      context: injectContext(mode, p.messageId, s, control.mcpServers),
      busyPolicy: 'enqueue',
    },
    `acp:${p.sessionId}:${turnId}`,
  );
  s.injected.set(p.messageId, { mode, text, turnId });
  return { messageId: p.messageId, status: 'replaced' };
}

/** session/inject, session/revoke_inject, session/replace_inject and session/pending_injections. */
export async function inject(c: AcpConnection, method: string, params: unknown): Promise<unknown> {
  if (method === 'session/replace_inject') return replace(c, params);
  if (method === 'session/inject') {
    const p = checkParams(InjectParams, method, params);
    const servers = await c.assertControl(p.sessionId);
    const text = textOf(p.content);
    if (!text.trim()) throw new AcpRpcError(RPC.INVALID_PARAMS, 'content has no text');
    const s = await c.session(p.sessionId);
    const messageId = `msg-${randomUUID()}`;
    const turnId = injectTurnId(messageId);
    await c.dispatch(
      { type: 'SubmitTurn', sessionId: p.sessionId, turnId, prompt: text, context: injectContext(p.mode, messageId, s, servers), busyPolicy: 'enqueue' },
      `acp:${p.sessionId}:${turnId}`,
    );
    s.injected.set(messageId, { mode: p.mode, text, turnId });
    return { status: 'accepted', messageId };
  }
  if (method === 'session/revoke_inject') {
    const p = checkParams(RevokeParams, method, params);
    const s = await c.session(p.sessionId);
    if (!(await c.mayControl(p.sessionId))) throw race('not_owner_or_not_authorized', p.messageId);
    let turnId: string;
    try {
      turnId = await queuedTurn(c, s, p.sessionId, p.messageId);
    } catch (e) {
      // Revoking twice is not a race: it answers `already_revoked`.
      if (e instanceof AcpRpcError && (e.data as { reason?: string } | undefined)?.reason === 'already_revoked')
        return { messageId: p.messageId, status: 'already_revoked' };
      throw e;
    }
    await cancelQueued(c, p.sessionId, turnId, p.messageId);
    return { messageId: p.messageId, status: 'revoked' };
  }
  if (method === 'session/pending_injections') {
    const p = checkParams(PendingParams, method, params);
    await c.session(p.sessionId);
    const { events } = await c.deps.store.readStream(c.principal.tenantId, sessionStreamId(p.sessionId));
    return pendingInjections(events as HubEvent[]);
  }
  throw new AcpRpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
}
