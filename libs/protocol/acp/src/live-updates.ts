import { replayLiveFact, type LiveFact, type LiveState } from './live-session';
import { rpcNotification } from './jsonrpc';
import type { SessionUpdateNotification } from './encode';

// Live-session transitions as Harn's `live_session_client` session-update extension (the bridge
// spec: attach, takeover, detach and heartbeat "are also emitted as session/update extensions";
// harn-serve sends `{sessionUpdate: "live_session_client", _meta: {harn: {action, state}}}` with
// the method's response as `state`). A dropped connection is a detach with reason `client_exit`.

/** Harn's `action` per recorded fact. */
const ACTIONS: Record<LiveFact['type'], string> = {
  AcpClientAttached: 'attached',
  AcpControlTakenOver: 'takeover',
  AcpClientDetached: 'detached',
  AcpClientHeartbeat: 'heartbeat',
};

/**
 * The state after one recorded live-session fact and its `live_session_client` notification
 * (`cursor`: the fact's global position). A fact that no longer applies changes nothing and is
 * not announced.
 */
export function liveSessionUpdate(
  state: LiveState,
  fact: LiveFact,
  sessionId: string,
  cursor: number,
): { state: LiveState; notification: SessionUpdateNotification | null } {
  const r = replayLiveFact(state, fact);
  if (!r.ok) return { state, notification: null };
  const response = fact.type === 'AcpClientDetached' ? { ...r.response, reason: fact.data.reason } : r.response;
  const update = { sessionUpdate: 'live_session_client', _meta: { harn: { action: ACTIONS[fact.type], clientId: fact.data.clientId, state: response } } };
  return { state: r.state, notification: rpcNotification('session/update', { sessionId, update, _meta: { harn: { cursor } } }) as SessionUpdateNotification };
}
