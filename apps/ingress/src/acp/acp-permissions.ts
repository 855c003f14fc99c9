import { decodePermissionAnswer, rpcNotification, rpcRequest, type RpcError } from '@hub/protocol-acp';

/** An answer to one permission request, as a decision (fail closed: errors and timeouts deny). */
export interface PermissionDecision {
  sessionId: string;
  approvalId: string;
  decision: 'approved' | 'denied';
  reason: string | null;
  /** The approver's edit of the call's arguments (Harn `{granted: true, args}`). */
  input?: Record<string, unknown>;
}

interface Open {
  sessionId: string;
  approvalId: string;
  timer: NodeJS.Timeout;
}

/**
 * Outgoing `session/request_permission` requests of one connection. Each ends exactly once: with
 * the client's answer, its error or silence (denied), or withdrawn because the approval was
 * resolved elsewhere (`$/cancel_request`).
 */
export class PermissionRequests {
  private seq = 0;
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly send: (msg: unknown) => void,
    private readonly decide: (d: PermissionDecision) => void,
    private readonly timeoutMs: number,
  ) {}

  ask(sessionId: string, approvalId: string, params: unknown): void {
    if ([...this.open.values()].some((o) => o.approvalId === approvalId)) return;
    const id = `perm-${++this.seq}`;
    const timer = setTimeout(() => this.finish(id, { decision: 'denied', reason: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    timer.unref();
    this.open.set(id, { sessionId, approvalId, timer });
    this.send(rpcRequest(id, 'session/request_permission', params));
  }

  /** A response from the client; false when it answers none of ours. */
  answer(id: string | number, result: unknown, error: RpcError | undefined): boolean {
    const key = String(id);
    if (!this.open.has(key)) return false;
    if (error) return this.finish(key, { decision: 'denied', reason: `client error ${error.code}: ${error.message}` });
    const d = decodePermissionAnswer(result);
    return this.finish(key, d ?? { decision: 'denied', reason: 'unrecognised permission answer' });
  }

  withdraw(approvalId: string): void {
    for (const [id, o] of this.open) {
      if (o.approvalId !== approvalId) continue;
      clearTimeout(o.timer);
      this.open.delete(id);
      this.send(rpcNotification('$/cancel_request', { requestId: id }));
    }
  }

  /** The connection is gone: nothing is decided for it (another client or the inbox may still answer). */
  dispose(): void {
    for (const o of this.open.values()) clearTimeout(o.timer);
    this.open.clear();
  }

  private finish(id: string, d: Omit<PermissionDecision, 'sessionId' | 'approvalId'>): boolean {
    const o = this.open.get(id);
    if (!o) return false;
    clearTimeout(o.timer);
    this.open.delete(id);
    this.decide({ sessionId: o.sessionId, approvalId: o.approvalId, ...d });
    return true;
  }
}
