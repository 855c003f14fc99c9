import {
  attach,
  AttachParams,
  checkParams,
  DetachParams,
  detach,
  harnMeta,
  heartbeat,
  HeartbeatParams,
  RPC,
  AcpRpcError,
  takeover,
  TakeoverParams,
  type LiveFact,
  type LiveResult,
  type LiveState,
} from '@hub/protocol-acp';
import type { AcpConnection } from './acp.connection';

/** The live-session extension methods (spec: "Live session attach/detach"). */
export const LIVE_METHODS = ['session/attach', 'session/detach', 'session/takeover', 'session/heartbeat'] as const;

function answer(r: LiveResult) {
  if (!r.ok) throw new AcpRpcError(RPC.INVALID_PARAMS, `live session: ${r.reason}`, { reason: r.reason, active_controller_id: r.activeControllerId });
  return r.response;
}

/** Attach, detach, takeover and heartbeat of one connection's clients, each recorded in the log (see LiveRegistry). */
export async function live(c: AcpConnection, method: string, params: unknown): Promise<unknown> {
  const now = new Date().toISOString();
  const reg = c.deps.live;
  const tenant = c.principal.tenantId;
  switch (method) {
    case 'session/attach': {
      const p = checkParams(AttachParams, method, params);
      const s = await c.session(p.sessionId);
      const fact = (): LiveFact => ({
        type: 'AcpClientAttached',
        data: { clientId: p.clientId, mode: p.mode, takeover: p.takeover, metadata: harnMeta(p._meta), at: now },
      });
      const res = answer(await reg.apply(tenant, p.sessionId, (st) => attach(st, p, now), fact, c.request));
      c.attached.set(p.sessionId, p.clientId);
      s.askPending();
      return res;
    }
    case 'session/takeover': {
      const p = checkParams(TakeoverParams, method, params);
      const fact = (before: LiveState): LiveFact => ({
        type: 'AcpControlTakenOver',
        data: { clientId: p.clientId, previousControllerId: before.controllerId, at: now },
      });
      const res = answer(await reg.apply(tenant, p.sessionId, (st) => takeover(st, p.clientId, now), fact, c.request));
      c.attached.set(p.sessionId, p.clientId);
      c.sessions.get(p.sessionId)?.askPending();
      return res;
    }
    case 'session/detach': {
      const p = checkParams(DetachParams, method, params);
      const reason = p.reason ?? 'detach';
      const fact = (): LiveFact => ({ type: 'AcpClientDetached', data: { clientId: p.clientId, reason, at: now } });
      const res = answer(await reg.apply(tenant, p.sessionId, (st) => detach(st, p.clientId), fact, c.request));
      if (c.attached.get(p.sessionId) === p.clientId) c.attached.delete(p.sessionId);
      return { ...res, reason };
    }
    case 'session/heartbeat': {
      const p = checkParams(HeartbeatParams, method, params);
      const fact = (): LiveFact => ({ type: 'AcpClientHeartbeat', data: { clientId: p.clientId, metadata: harnMeta(p._meta), at: now } });
      return answer(await reg.apply(tenant, p.sessionId, (st) => heartbeat(st, p.clientId, p._meta, now), fact, c.request));
    }
    default:
      throw new AcpRpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}
