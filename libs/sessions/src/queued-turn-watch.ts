import { concernsTurn, isDomainError, sessionStreamId } from '@hub/domain';
import type { TurnQueued } from '@hub/domain';
import type { CommandLog, ScheduledTurn } from './ports';

/**
 * How long a scheduled turn may wait for a worker before its watchers are told it waits: a worker
 * with a free slot takes a job within milliseconds, so a turn still waiting after a second is
 * waiting for capacity; shorter would append for turns that are merely about to start.
 */
export const TURN_QUEUED_AFTER_MS = 1000;

export interface QueuedTurnWatchOptions {
  /** How long a scheduled turn may wait before it is said to wait (default {@link TURN_QUEUED_AFTER_MS}). */
  graceMs?: number;
  /** The process that scheduled the turns (`ingress`, `worker`): the `system` actor of their TurnQueued. */
  writer: string;
  /** The BullMQ state of the turn's job (`HubQueues.jobState('runTurn', ...)`). */
  jobState(turn: ScheduledTurn): Promise<string>;
  /** Told when a look failed; the turn runs as it would have, only without the indication. */
  warn(message: string): void;
}

/** Job states in which no worker holds the job: it waits for one to take it. */
const WAITING_STATES: ReadonlySet<string> = new Set(['waiting', 'prioritized']);
/** A look that keeps meeting other writers gives up: the indication is a courtesy, not a fact the turn needs. */
const MAX_CONFLICTS = 3;

/**
 * Tells a turn's watchers that it waits for a worker (ADR 0033). One timer per scheduled turn:
 * after `graceMs`, one Redis look at its job; only a job still waiting costs a read of the
 * stream's tail and one append (`TurnQueued`), with the expected version and an idempotency key
 * derived from the turn and its job, and only when no event of the turn followed the scheduling
 * append (a worker that took it, a cancel). A conflict means someone wrote meanwhile: look again.
 *
 * A process that stops before the timer fires tells nobody: the turn runs as it would have, and
 * its watchers see `running` without the wait, as they did before this existed.
 */
export class QueuedTurnWatch {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly log: CommandLog,
    private readonly opts: QueuedTurnWatchOptions,
  ) {}

  /** Looks at `turn` after the grace period. Never throws, never holds the process open. */
  watch(turn: ScheduledTurn): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.check(turn).catch((e: unknown) =>
        this.opts.warn(`turn ${turn.turnId}: could not tell whether it waits for a worker: ${e instanceof Error ? e.message : String(e)}`),
      );
    }, this.opts.graceMs ?? TURN_QUEUED_AFTER_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Turns watched and not looked at yet. */
  get pending(): number {
    return this.timers.size;
  }

  /** Drops the looks not taken yet (shutdown). */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** One look: whether the job still waits, then the append if nothing of the turn followed. True when it appended. */
  async check(turn: ScheduledTurn): Promise<boolean> {
    if (!WAITING_STATES.has(await this.opts.jobState(turn))) return false;
    const streamId = sessionStreamId(turn.sessionId);
    const event: TurnQueued = { type: 'TurnQueued', data: { turnId: turn.turnId, reason: 'capacity', since: turn.since } };
    for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      const { version, events } = await this.log.readStream(turn.tenantId, streamId, { fromVersion: turn.version });
      if (events.some((e) => e.streamPosition > turn.version && concernsTurn(e, turn.turnId))) return false;
      try {
        const actor = { type: 'system' as const, id: this.opts.writer };
        const res = await this.log.append(turn.tenantId, streamId, [{ ...event, metadata: { ...turn.metadata, actor } }], {
          expectedVersion: version,
          idempotencyKey: `turn-queued:${turn.sessionId}:${turn.turnId}:${turn.key}`,
        });
        return !res.duplicate;
      } catch (e) {
        if (isDomainError(e) && e.code === 'STREAM_VERSION_CONFLICT') continue;
        throw e;
      }
    }
    return false;
  }
}
