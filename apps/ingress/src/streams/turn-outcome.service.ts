import { Injectable } from '@nestjs/common';
import { foldTurn, publicFailureMessage, type ApprovalRequested, type HubEvent, type Recorded, type Usage } from '@hub/domain';
import { SessionStreams } from './session-streams.service';

/** Where a turn stands when a request-response protocol has to answer. */
export type TurnOutcome =
  | { kind: 'completed'; text: string; usage: Usage; events: Recorded<HubEvent>[] }
  | { kind: 'failed'; code: string; message: string; retryable: boolean; usage: Usage; events: Recorded<HubEvent>[] }
  | { kind: 'cancelled'; reason: string; text: string; usage: Usage; events: Recorded<HubEvent>[] }
  /** `votes`: distinct approvals so far of each pending approval that needs several (ADR 0048), by approval id. */
  | {
      kind: 'awaiting_approval';
      approvals: ApprovalRequested['data'][];
      votes: Record<string, number>;
      text: string;
      usage: Usage;
      events: Recorded<HubEvent>[];
    }
  /** Still queued or running when the wait budget ran out; `queued`: no worker has taken it yet (ADR 0033). */
  | { kind: 'pending'; text: string; usage: Usage; events: Recorded<HubEvent>[]; queued: { reason: string; since: string } | null };

function outcomeOf(turnId: string, events: Recorded<HubEvent>[]): TurnOutcome | null {
  const mine = events.filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId);
  const p = foldTurn(mine, turnId);
  const text = p.calls.map((c) => c.completed?.text ?? c.text).join('');
  const base = { text, usage: p.usage, events: mine };
  const end = mine.find((e) => e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled');
  if (end?.type === 'TurnCompleted') return { kind: 'completed', ...base, text: end.data.text };
  if (end?.type === 'TurnFailed')
    return { kind: 'failed', code: end.data.code, message: publicFailureMessage(end.data.code, end.data.message), retryable: end.data.retryable, ...base };
  if (end?.type === 'TurnCancelled') return { kind: 'cancelled', reason: end.data.reason, ...base };
  const pending = p.tools.filter((t) => t.approval?.status === 'pending');
  if (pending.length) {
    const approvals = mine
      .filter((e): e is Recorded<ApprovalRequested> => e.type === 'ApprovalRequested')
      .filter((e) => pending.some((t) => t.approval?.approvalId === e.data.approvalId))
      .map((e) => e.data);
    const votes: Record<string, number> = {};
    for (const e of mine) if (e.type === 'ApprovalVoted') votes[e.data.approvalId] = e.data.approvals;
    return { kind: 'awaiting_approval', approvals, votes, ...base };
  }
  return null;
}

/**
 * Waits, reading the log, until a turn completes, fails, is cancelled or waits for an approval
 * — or until the budget runs out. For protocols that answer a request with the turn's outcome.
 */
@Injectable()
export class TurnOutcomes {
  constructor(private readonly streams: SessionStreams) {}

  /**
   * `after`: the global position of what the caller itself just appended (an approval's answer, a
   * cancel). No outcome is taken from a state older than that: the history is read up to the
   * settled head, which a transaction still open anywhere on the server can hold behind the
   * caller's own append, and the turn would then still look as it was (an answered approval
   * still pending).
   */
  async wait(tenantId: string, sessionId: string, turnId: string, budgetMs: number, opts: { after?: number } = {}): Promise<TurnOutcome> {
    const seen: Recorded<HubEvent>[] = [];
    let seenUpTo = 0;
    let settle!: (o: TurnOutcome) => void;
    const settled = new Promise<TurnOutcome>((r) => (settle = r));
    const check = () => {
      if (seenUpTo < (opts.after ?? 0)) return;
      const o = outcomeOf(turnId, seen);
      if (o) settle(o);
    };
    const feed = await this.streams.open(tenantId, sessionId, (batch) => {
      seen.push(...batch);
      seenUpTo = Math.max(seenUpTo, ...batch.map((e) => e.globalPosition));
      check();
    });
    seen.unshift(...feed.history);
    seenUpTo = Math.max(seenUpTo, feed.head);
    check();
    const timer = setTimeout(() => {
      const mine = seen.filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId);
      const p = foldTurn(mine, turnId);
      // Waiting while the turn's last event is its TurnQueued: any later one ends the wait.
      const last = mine.at(-1);
      const queued = last?.type === 'TurnQueued' ? { reason: last.data.reason, since: last.data.since } : null;
      settle({ kind: 'pending', text: p.calls.map((c) => c.text).join(''), usage: p.usage, events: seen, queued });
    }, budgetMs);
    try {
      return await settled;
    } finally {
      clearTimeout(timer);
      await feed.close();
    }
  }
}
