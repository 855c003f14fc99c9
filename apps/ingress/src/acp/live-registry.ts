import { emptyLiveState, mayControl, type LiveResult, type LiveState } from '@hub/protocol-acp';

/**
 * Who is attached to which live session, for every ACP connection of this ingress process.
 * In memory: another ingress process does not see it (the log-backed form, ClientAttached /
 * ClientDetached events, is the follow-up).
 */
export class LiveRegistry {
  private readonly sessions = new Map<string, LiveState>();

  /** Applies one transition; the state changes only when it succeeds. */
  apply(tenantId: string, sessionId: string, step: (s: LiveState) => LiveResult): LiveResult {
    const key = `${tenantId}\u0000${sessionId}`;
    const r = step(this.sessions.get(key) ?? emptyLiveState());
    if (r.ok) {
      if (Object.keys(r.state.clients).length === 0) this.sessions.delete(key);
      else this.sessions.set(key, r.state);
    }
    return r;
  }

  /** Whether `clientId` (null: a connection that never attached) may prompt or answer permissions. */
  mayControl(tenantId: string, sessionId: string, clientId: string | null): boolean {
    return mayControl(this.sessions.get(`${tenantId}\u0000${sessionId}`) ?? emptyLiveState(), clientId);
  }
}
