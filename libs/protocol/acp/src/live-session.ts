import { z } from 'zod';
import { ACP_LIVE_FACT_TYPES } from '@hub/domain';

// Live sessions (Harn bridge spec, "Live session attach/detach"): many observers, at most one
// controller per session. A pure state machine; the caller brings the clock and keeps the state.

const Meta = z.record(z.string(), z.unknown()).nullish();
const Base = { sessionId: z.string().min(1), clientId: z.string().min(1).max(128), _meta: Meta };
export const AttachParams = z.looseObject({ ...Base, mode: z.enum(['observer', 'controller']).default('observer'), takeover: z.boolean().default(false) });
export const DetachParams = z.looseObject({ ...Base, reason: z.string().optional() });
export const TakeoverParams = z.looseObject(Base);
export const HeartbeatParams = z.looseObject(Base);
export type AttachParams = z.infer<typeof AttachParams>;

/** One attached client, in the spec's wire shape. */
export interface LiveClient {
  client_id: string;
  mode: 'observer' | 'controller';
  attached_at: string;
  last_seen_at: string;
  prompt_injection: boolean;
  permission_routing: boolean;
  metadata: Record<string, unknown>;
}

/** Who is attached to one session. */
export interface LiveState {
  clients: Record<string, LiveClient>;
  controllerId: string | null;
}

export const emptyLiveState = (): LiveState => ({ clients: {}, controllerId: null });

/** Why a live-session call was refused (`error.data.reason`). */
export type LiveRefusal = 'controller_already_attached' | 'unknown_client_id' | 'not_owner_or_not_authorized';

export type LiveResult = { ok: true; state: LiveState; response: LiveResponse } | { ok: false; reason: LiveRefusal; activeControllerId: string | null };

/** The response every attach/detach/takeover/heartbeat shares. */
export interface LiveResponse {
  client: LiveClient | null;
  previous_controller_id: string | null;
  active_controller_id: string | null;
  clients: LiveClient[];
}

/** The `harn` part of a `_meta` (empty when absent): the client metadata a live session keeps. */
export const harnMeta = (m: Record<string, unknown> | null | undefined): Record<string, unknown> => {
  const h = m?.['harn'];
  return typeof h === 'object' && h !== null ? (h as Record<string, unknown>) : {};
};

function respond(state: LiveState, clientId: string, previous: string | null): Extract<LiveResult, { ok: true }> {
  return {
    ok: true,
    state,
    response: {
      client: state.clients[clientId] ?? null,
      previous_controller_id: previous,
      active_controller_id: state.controllerId,
      clients: Object.values(state.clients),
    },
  };
}

function withMode(c: LiveClient, mode: LiveClient['mode']): LiveClient {
  return { ...c, mode, prompt_injection: mode === 'controller', permission_routing: mode === 'controller' };
}

/** Demotes the current controller (if any) to observer and makes `clientId` the controller. */
function promote(state: LiveState, client: LiveClient): LiveState {
  const clients = { ...state.clients };
  if (state.controllerId && clients[state.controllerId]) clients[state.controllerId] = withMode(clients[state.controllerId], 'observer');
  clients[client.client_id] = withMode(client, 'controller');
  return { clients, controllerId: client.client_id };
}

/** `session/attach`: a second controller needs `takeover` (re-attaching the same id is a reconnect). */
export function attach(state: LiveState, p: AttachParams, now: string): LiveResult {
  const prior = state.clients[p.clientId];
  const client = withMode(
    {
      client_id: p.clientId,
      mode: 'observer',
      attached_at: prior?.attached_at ?? now,
      last_seen_at: now,
      prompt_injection: false,
      permission_routing: false,
      metadata: { ...prior?.metadata, ...harnMeta(p._meta) },
    },
    'observer',
  );
  const previous = state.controllerId;
  if (p.mode === 'observer') {
    const controllerId = previous === p.clientId ? null : previous;
    return respond({ clients: { ...state.clients, [p.clientId]: client }, controllerId }, p.clientId, previous);
  }
  if (previous && previous !== p.clientId && !p.takeover) return { ok: false, reason: 'controller_already_attached', activeControllerId: previous };
  return respond(promote(state, client), p.clientId, previous);
}

/** `session/takeover`: an attached client becomes the controller; the prior one observes. */
export function takeover(state: LiveState, clientId: string, now: string): LiveResult {
  const c = state.clients[clientId];
  if (!c) return { ok: false, reason: 'unknown_client_id', activeControllerId: state.controllerId };
  return respond(promote(state, { ...c, last_seen_at: now }), clientId, state.controllerId);
}

/** `session/detach` (also on a dropped connection, reason `client_exit`): releases control if held. */
export function detach(state: LiveState, clientId: string): LiveResult {
  if (!state.clients[clientId]) return { ok: false, reason: 'unknown_client_id', activeControllerId: state.controllerId };
  const clients = { ...state.clients };
  const gone = clients[clientId];
  delete clients[clientId];
  const next = { clients, controllerId: state.controllerId === clientId ? null : state.controllerId };
  const r = respond(next, clientId, state.controllerId);
  return { ...r, response: { ...r.response, client: gone } };
}

/** `session/heartbeat`: refreshes last-seen and metadata, never ownership. */
export function heartbeat(state: LiveState, clientId: string, meta: Record<string, unknown> | null | undefined, now: string): LiveResult {
  const c = state.clients[clientId];
  if (!c) return { ok: false, reason: 'unknown_client_id', activeControllerId: state.controllerId };
  const clients = { ...state.clients, [clientId]: { ...c, last_seen_at: now, metadata: { ...c.metadata, ...harnMeta(meta) } } };
  return respond({ ...state, clients }, clientId, state.controllerId);
}

/**
 * Whether a client may prompt, inject or answer permissions: the controller may; with no
 * controller, anyone not attached as an observer may (a plain ACP client never attaches).
 */
export function mayControl(state: LiveState, clientId: string | null): boolean {
  if (state.controllerId) return clientId === state.controllerId;
  return clientId === null || state.clients[clientId]?.mode !== 'observer';
}

/**
 * One recorded live-session transition (the log form, on a non-session stream per session, so
 * every ingress instance folds the same attachment state). Facts: replaying them always succeeds.
 */
export type LiveFact =
  | { type: 'AcpClientAttached'; data: { clientId: string; mode: 'observer' | 'controller'; takeover: boolean; metadata: Record<string, unknown>; at: string } }
  | { type: 'AcpControlTakenOver'; data: { clientId: string; previousControllerId: string | null; at: string } }
  | { type: 'AcpClientDetached'; data: { clientId: string; reason: string; at: string } }
  | { type: 'AcpClientHeartbeat'; data: { clientId: string; metadata: Record<string, unknown>; at: string } };

/** The names of the live-session facts (anything else on the stream is ignored). */
export const LIVE_FACT_TYPES: ReadonlySet<string> = new Set(ACP_LIVE_FACT_TYPES);

/** Replays one recorded fact: the transition and the response its method gave. */
export function replayLiveFact(state: LiveState, fact: LiveFact): LiveResult {
  switch (fact.type) {
    case 'AcpClientAttached':
      return attach(
        state,
        { sessionId: '', clientId: fact.data.clientId, mode: fact.data.mode, takeover: true, _meta: { harn: fact.data.metadata } },
        fact.data.at,
      );
    case 'AcpControlTakenOver':
      return takeover(state, fact.data.clientId, fact.data.at);
    case 'AcpClientDetached':
      return detach(state, fact.data.clientId);
    case 'AcpClientHeartbeat':
      return heartbeat(state, fact.data.clientId, { harn: fact.data.metadata }, fact.data.at);
  }
}

/** Applies one recorded fact (a transition that already succeeded once). */
export function evolveLive(state: LiveState, fact: LiveFact): LiveState {
  const r = replayLiveFact(state, fact);
  return r.ok ? r.state : state;
}

/** Folds a session's live-session facts, oldest first. */
export function foldLive(facts: Iterable<LiveFact>): LiveState {
  let state = emptyLiveState();
  for (const f of facts) state = evolveLive(state, f);
  return state;
}

/**
 * The stream of an ACP session's live-session facts (creation, attachments, MCP servers), beside
 * its session stream: erasure and retention remove both.
 */
export const liveStreamId = (sessionId: string): string => `acp-live:${sessionId}`;
