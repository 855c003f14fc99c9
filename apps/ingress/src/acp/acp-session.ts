import { actorIdentity, publicFailureMessage, type ApprovalRequested, type HubEvent, type Recorded } from '@hub/domain';
import type { EventStore, StoredEvent } from '@hub/event-store';
import {
  AcpRpcError,
  emptyLiveState,
  encode,
  initialAcpView,
  LIVE_FACT_TYPES,
  liveSessionUpdate,
  permissionRequest,
  RPC,
  stopReasonOf,
  type AcpView,
  type LiveFact,
  type LiveState,
} from '@hub/protocol-acp';
import type { SessionFeed, SessionStreams } from '../streams/session-streams.service';
import { paced } from '../transport/replay-pace';
import { sessionLogUpTo } from '../transport/session-log-pages';

/** The session's live-session stream (attach, takeover, detach, heartbeat), read and then followed. */
export interface LiveFacts {
  read(): Promise<readonly Recorded<StoredEvent>[]>;
  follow(after: number, onFacts: (facts: readonly Recorded<StoredEvent>[]) => Promise<void>): { close(): Promise<void> };
}

/**
 * A paced history replay (`session/load` with `_meta.replay`, see acp-replay.ts): the history read
 * from the log page by page and sent at its recorded pace divided by `speed`.
 */
export interface PacedReplay {
  speed: number;
  store: EventStore;
}

/** How a prompt's turn ended, as `session/prompt` answers it. */
export type TurnEnd = { ok: true; stopReason: string } | { ok: false; code: string; message: string; retryable: boolean };

/** What a session needs from its connection. */
export interface SessionPeer {
  /** `catchUp`: history the client asked for (a load), not counted against its send buffer (slow-consumer.ts). */
  send(msg: unknown, catchUp?: boolean): void;
  /** Whether the client takes this `session/update` kind (Harn extensions are opt-in). */
  accepts(sessionUpdate: string): boolean;
  /** Sends `session/request_permission` for an approval; the connection turns the answer into ResolveApproval. */
  askPermission(approvalId: string, params: unknown): void;
  /** The approval was resolved elsewhere: withdraw an open request. */
  withdrawPermission(approvalId: string): void;
}

function turnEndOf(e: Recorded<HubEvent>): TurnEnd | null {
  if (e.type === 'TurnCompleted') return { ok: true, stopReason: stopReasonOf(e.data.stopReason === 'max_steps' ? 'max_steps' : 'completed') };
  if (e.type === 'TurnCancelled') return { ok: true, stopReason: 'cancelled' };
  if (e.type === 'TurnFailed') return { ok: false, code: e.data.code, message: publicFailureMessage(e.data.code, e.data.message), retryable: e.data.retryable };
  return null;
}

/**
 * One hub session opened on one ACP connection: its live feed from the log, encoded to
 * `session/update`; the prompts waiting for their turn to end; and open permission requests.
 */
export class AcpSession {
  private view: AcpView = initialAcpView();
  /** Ends the live feed; the feed itself is not kept: its `history` (the whole session) is read once, at open. */
  private closeFeed?: SessionFeed['close'];
  private liveFeed?: { close(): Promise<void> };
  /** Aborted at close: a paced replay in progress stops waiting. */
  private readonly closing = new AbortController();
  /** Who is attached, folded from the live stream: each transition is announced with the state after it. */
  private liveState: LiveState = emptyLiveState();
  private readonly waiters = new Map<string, (end: TurnEnd) => void>();
  private readonly ended = new Map<string, TurnEnd>();
  private readonly pending = new Map<string, ApprovalRequested['data']>();
  /** Who approved each open approval that needs several (`ApprovalVoted`, ADR 0048), by actor identity. */
  private readonly voted = new Map<string, string[]>();
  /** Live delivery waits until history is handled, so updates leave in log order. */
  private chain: Promise<void>;
  private openGate!: () => void;
  mode = 'default';
  /** Messages injected on this connection (`session/inject`), by messageId. */
  readonly injected = new Map<string, { mode: string; text: string; turnId: string }>();
  private readonly turns = new Map<string, InjectedTurnStatus>();

  constructor(
    readonly sessionId: string,
    private readonly tenantId: string,
    private readonly peer: SessionPeer,
  ) {
    this.chain = new Promise((resolve) => (this.openGate = resolve));
  }

  /**
   * Opens the live feed; `replay` sends the whole history as updates first (`session/load`): at
   * once (`true`), or paced (a `PacedReplay`), which resolves after the last replayed update.
   * `live`: the attachment facts, announced from the same position on as `live_session_client`.
   * Returns how many history events were read.
   */
  async open(streams: SessionStreams, replay: boolean | PacedReplay, live?: LiveFacts): Promise<number> {
    const pacing = typeof replay === 'object' ? replay : null;
    // Live events after the head wait behind the gate (see `chain`) while the history is sent.
    const feed = await streams.open(this.tenantId, this.sessionId, (batch) => this.enqueue(batch), { history: !pacing });
    this.closeFeed = feed.close;
    const count = pacing ? await this.replayPaced(pacing, feed.head) : feed.history.length;
    if (!pacing) for (const e of feed.history) this.apply(e, replay === true, false);
    if (live) {
      const head = feed.head;
      for (const f of await live.read()) if (f.globalPosition <= head) this.applyLive(f, false);
      this.liveFeed = live.follow(head, (facts) => (this.chain = this.chain.then(() => facts.forEach((f) => this.applyLive(f, true)))));
    }
    return count;
  }

  /**
   * The history up to `head`, read in pages and sent as it is read, each event at its recorded
   * distance to the one before divided by the speed (one pause capped, see replay-pace.ts). The
   * events are applied as history (`live: false`): nothing is asked or dispatched because of them.
   */
  private async replayPaced(r: PacedReplay, head: number): Promise<number> {
    let count = 0;
    try {
      for await (const e of paced(sessionLogUpTo(r.store, this.tenantId, this.sessionId, { head }), r.speed, this.closing.signal)) {
        this.apply(e, true, false);
        count++;
      }
    } catch (e) {
      if (this.closing.signal.aborted)
        throw new AcpRpcError(RPC.INTERNAL_ERROR, `replay of session ${this.sessionId} stopped: the session was closed on this connection`);
      throw e;
    }
    return count;
  }

  private applyLive(f: Recorded<StoredEvent>, emit: boolean): void {
    if (!LIVE_FACT_TYPES.has(f.type)) return;
    const r = liveSessionUpdate(this.liveState, { type: f.type, data: f.data } as LiveFact, this.sessionId, f.globalPosition);
    this.liveState = r.state;
    if (emit && r.notification && this.peer.accepts('live_session_client')) this.peer.send(r.notification);
  }

  /** Starts live delivery, then asks for approvals still open in the history. */
  start(): void {
    this.openGate();
    this.askPending();
  }

  /** Asks for the approvals still open (at start, and when this client gains control). */
  askPending(): void {
    for (const [id, a] of this.pending)
      this.peer.askPermission(id, permissionRequest(this.sessionId, a, new Date().toISOString(), this.executorOf(a.toolCallId)));
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all([this.closeFeed?.(), this.liveFeed?.close()]);
  }

  /** Resolves when the turn ends (it may already have). */
  waitForTurn(turnId: string): Promise<TurnEnd> {
    const done = this.ended.get(turnId);
    if (done) return Promise.resolve(done);
    return new Promise((resolve) => this.waiters.set(turnId, resolve));
  }

  private enqueue(batch: Recorded<HubEvent>[]): Promise<void> {
    this.chain = this.chain.then(() => batch.forEach((e) => this.apply(e, true, true)));
    return this.chain;
  }

  private apply(e: Recorded<HubEvent>, emit: boolean, live: boolean): void {
    const r = encode(e, this.view, this.sessionId);
    this.view = r.view;
    if (emit) r.notifications.filter((n) => this.peer.accepts(n.params.update.sessionUpdate)).forEach((n) => this.peer.send(n, !live));
    this.trackApprovals(e, live);
    this.trackTurn(e);
    const end = turnEndOf(e);
    if (end && 'turnId' in e.data) {
      const turnId = (e.data as { turnId: string }).turnId;
      this.ended.set(turnId, end);
      this.waiters.get(turnId)?.(end);
      this.waiters.delete(turnId);
    }
  }

  /** Where the tool call runs, as its ToolCallStarted recorded (the hub's executor name); undefined if unseen. */
  executorOf(toolCallId: string): string | undefined {
    return this.view.tools[toolCallId]?.executor;
  }

  /** Where the tool call an open approval is for runs; undefined when the approval is not open here. */
  executorOfApproval(approvalId: string): string | undefined {
    const a = this.pending.get(approvalId);
    return a ? this.executorOf(a.toolCallId) : undefined;
  }

  /** An open approval's quorum terms (absent: the first answer decides) and who approved it so far; null when it is not open here. */
  approvalTerms(approvalId: string): { quorum: ApprovalRequested['data']['quorum']; approvedBy: readonly string[] } | null {
    const a = this.pending.get(approvalId);
    return a ? { quorum: a.quorum, approvedBy: this.voted.get(approvalId) ?? [] } : null;
  }

  /** Where a turn of this session is: queued, started, cancelled or ended; null if unknown. */
  turnStatus(turnId: string): 'queued' | 'started' | 'cancelled' | 'ended' | null {
    return this.turns.get(turnId) ?? null;
  }

  private trackTurn(e: Recorded<HubEvent>): void {
    trackTurnStatus(this.turns, e);
  }

  private trackApprovals(e: Recorded<HubEvent>, live: boolean): void {
    if (e.type === 'ApprovalRequested') {
      this.pending.set(e.data.approvalId, e.data);
      if (live) this.peer.askPermission(e.data.approvalId, permissionRequest(this.sessionId, e.data, e.createdAt, this.executorOf(e.data.toolCallId)));
    } else if (e.type === 'ApprovalVoted') {
      this.voted.set(e.data.approvalId, [...(this.voted.get(e.data.approvalId) ?? []), actorIdentity(e.data.by)]);
    } else if (e.type === 'ApprovalResolved') {
      this.pending.delete(e.data.approvalId);
      this.voted.delete(e.data.approvalId);
      if (live) this.peer.withdrawPermission(e.data.approvalId);
    }
  }
}

export type InjectedTurnStatus = 'queued' | 'started' | 'cancelled' | 'ended';

/** Folds one event into the statuses of a session's turns (what inject, replace and revoke decide on). */
export function trackTurnStatus(turns: Map<string, InjectedTurnStatus>, e: HubEvent): void {
  // A steered message went into the running turn: its own queued turn is delivered.
  if (e.type === 'UserMessageInjected') return void turns.set(e.data.fromTurnId, 'ended');
  const status = ({ TurnRequested: 'queued', TurnStarted: 'started', TurnCancelled: 'cancelled', TurnCompleted: 'ended', TurnFailed: 'ended' } as const)[
    e.type as string
  ];
  if (!status || !('turnId' in e.data)) return;
  const turnId = (e.data as { turnId: string }).turnId;
  // A cancelled queued turn is revoked; a cancelled running one was delivered.
  turns.set(turnId, status === 'cancelled' && turns.get(turnId) === 'started' ? 'ended' : status);
}
