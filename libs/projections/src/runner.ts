import { ListenConnection } from '@hub/event-store';
import type { Pool } from 'pg';
import { GroupCache, applyBatch, readsOf } from './apply-batch';
import { Leadership } from './leadership';
import type { ProjectedEvent, ProjectionDef } from './projection';
import { BatchReader, ensureCheckpoint, readCheckpoint } from './store';

/** What one committed batch did (for lag measurements and logs). */
export interface BatchInfo {
  projection: string;
  events: readonly ProjectedEvent[];
  /** `Date.now()` right after COMMIT. */
  committedAt: number;
}

export interface RunnerOptions {
  /** For the lock and LISTEN connections. */
  connectionString: string;
  /** Events per transaction. Default 1000. */
  batchSize?: number;
  /** How often a standby tries to take over. Default 1000 ms. */
  standbyPollMs?: number;
  /** Safety poll in case a NOTIFY is lost. Default 1000 ms. */
  pollIntervalMs?: number;
  /**
   * How long a wake waits before its batch starts, so the commits of that moment share one
   * transaction instead of a batch each. Default 10 ms: on a busy 2-core host a batch per commit
   * (times three projections) cost a third of the turn throughput (tools/bench/turns.ts 28.9 ->
   * 18.6 turns/s; 25.1 with this window, lag p99 still about 100 ms).
   */
  coalesceMs?: number;
  /**
   * The window while commits keep coming (the previous batch started less than
   * {@link BUSY_WITHIN_MS} ago). Default 50 ms: at 200 turns/s a 10 ms window held about one
   * turn per batch, and the three projections' batches were 40 % of Postgres's time per turn
   * (turn-cost bench: 1.56 -> 0.75 ms per turn with 50 ms). A quiet hub keeps the short window.
   */
  busyCoalesceMs?: number;
  log?: (message: string, error?: unknown) => void;
  onBatch?: (info: BatchInfo) => void;
  /** Test hook: runs inside each batch's transaction just before COMMIT. */
  beforeCommit?: (projection: string) => Promise<void>;
}

const MAX_BACKOFF_MS = 1000;
/** A batch that starts within this of the previous one's start means commits keep coming: the longer window. */
const BUSY_WITHIN_MS = 100;

/** One projection's loop in this process: runs only while this process holds its lock. */
class Loop {
  active = false;
  position = 0;
  private running = false;
  private dirty = false;
  private retry: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  /** When the last batch started (`performance.now()`), for the busy window. */
  private lastBatchAt = -Infinity;
  done: Promise<void> = Promise.resolve();
  private readonly reader: BatchReader;
  /** Rows this process wrote, while it holds the lock (see GroupCache). */
  private cache: GroupCache | undefined;

  constructor(
    readonly def: ProjectionDef,
    private readonly pool: Pool,
    private readonly o: Required<Pick<RunnerOptions, 'batchSize' | 'log'>> & RunnerOptions,
  ) {
    this.reader = new BatchReader(pool, o.batchSize, readsOf(def));
  }

  async activate(): Promise<void> {
    this.position = await ensureCheckpoint(this.pool, this.def.name);
    this.cache = new GroupCache(false);
    this.active = true;
    this.o.log(`projections: ${this.def.name} active from position ${this.position}`);
    this.wake();
  }

  deactivate(): void {
    this.active = false;
    this.cache = undefined;
    clearTimeout(this.retry);
    clearTimeout(this.pending);
    this.pending = undefined;
  }

  /** Something was committed: a batch starts after `coalesceMs` (others arriving meanwhile join it). */
  wake(): void {
    this.dirty = true;
    if (this.running || !this.active || this.pending) return;
    const busy = performance.now() - this.lastBatchAt < BUSY_WITHIN_MS;
    const coalesce = busy ? (this.o.busyCoalesceMs ?? 50) : (this.o.coalesceMs ?? 10);
    if (coalesce <= 0) return void (this.done = this.run());
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (!this.running && this.active) this.done = this.run();
    }, coalesce);
  }

  private async run(): Promise<void> {
    this.running = true;
    this.lastBatchAt = performance.now();
    try {
      while (this.dirty && this.active) {
        this.dirty = false;
        const { more, unsettled, progressed } = await this.step();
        // Backing off is for waiting on a writer; any progress starts the wait short again.
        if (progressed) this.backoffMs = 0;
        if (more) this.dirty = true;
        else if (unsettled) this.later();
        else this.backoffMs = 0;
        // Commits that arrived during this batch wait their coalescing window, like any wake.
        if (!more && this.dirty) break;
      }
    } catch (e) {
      this.o.log(`projections: ${this.def.name} batch failed, retrying`, e);
      // The commit may or may not have happened: start again from what the database says.
      this.cache?.invalidate();
      this.position = await ensureCheckpoint(this.pool, this.def.name).catch(() => this.position);
      this.later();
    } finally {
      this.running = false;
      if (this.dirty && this.active) {
        this.dirty = false;
        this.wake();
      }
    }
  }

  /** A writer is still open, or the database failed: look again soon, backing off to 1 s. */
  private later(): void {
    if (!this.active || this.retry) return;
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 5), MAX_BACKOFF_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, this.backoffMs);
  }

  private async step(): Promise<{ more: boolean; unsettled: boolean; progressed: boolean }> {
    const { events, visibleHead } = await this.reader.next(this.position);
    if (events.length === 0) {
      // Caught up: a rebuild may have reset the checkpoint (nothing to apply means no guard to trip).
      const checkpoint = await readCheckpoint(this.pool, this.def.name);
      if (checkpoint !== this.position) {
        this.cache?.invalidate();
        this.position = checkpoint;
        return { more: true, unsettled: false, progressed: false };
      }
      return { more: false, unsettled: visibleHead > this.position, progressed: false };
    }
    if (!this.active) return { more: false, unsettled: false, progressed: false };
    const beforeCommit = this.o.beforeCommit;
    const ok = await applyBatch(this.pool, this.def, this.position, events, {
      onSkip: (e, error) => this.o.log(`projections: ${this.def.name} skipped ${e.type} at ${e.globalPosition}`, error),
      beforeCommit: beforeCommit && (() => beforeCommit(this.def.name)),
      cache: this.cache,
    });
    if (!ok) {
      // Rebuilt, or another runner got here first: carry on from where the checkpoint is now.
      this.position = await ensureCheckpoint(this.pool, this.def.name);
      return { more: true, unsettled: false, progressed: false };
    }
    this.position = events[events.length - 1].globalPosition;
    this.o.onBatch?.({ projection: this.def.name, events, committedAt: Date.now() });
    return { more: events.length === this.o.batchSize, unsettled: visibleHead > this.position, progressed: true };
  }
}

/**
 * Runs projections from their checkpoints in every process that starts one; for each projection
 * exactly one process is active at a time (see {@link Leadership}). Wakes on the event store's
 * NOTIFY, reads settled events in batches, and writes each batch with its checkpoint in one
 * transaction, so every read model is exactly-once with respect to the log.
 */
export class ProjectionRunner {
  private readonly loops: Map<string, Loop>;
  private readonly leadership: Leadership;
  private readonly listen: ListenConnection;
  private readonly poll: NodeJS.Timeout;
  private readonly log: (message: string, error?: unknown) => void;
  private stopped = false;

  constructor(pool: Pool, projections: readonly ProjectionDef[], options: RunnerOptions) {
    this.log = options.log ?? (() => undefined);
    const o = { ...options, batchSize: options.batchSize ?? 1000, log: this.log };
    this.loops = new Map(projections.map((p) => [p.name, new Loop(p, pool, o)]));
    this.leadership = new Leadership({
      connectionString: options.connectionString,
      names: projections.map((p) => p.name),
      pollMs: options.standbyPollMs ?? 1000,
      onGain: (name) => this.activate(name),
      onLoss: (name) => this.loops.get(name)?.deactivate(),
      log: this.log,
    });
    this.listen = new ListenConnection(options.connectionString, () => this.wakeAll(), this.log);
    this.poll = setInterval(() => this.wakeAll(), options.pollIntervalMs ?? 1000);
    this.poll.unref();
  }

  /**
   * Starts the loop of a projection whose lock this process just gained. Starting reads the
   * checkpoint; when that fails (a failover cut the connection) the lock is still held, so no
   * other process will run the projection: try again while it is held, or the read model stops
   * until this process restarts (the HA suite's switchover found it stopped).
   */
  private activate(name: string): void {
    const loop = this.loops.get(name);
    loop?.activate().catch((e: unknown) => {
      this.log(`projections: ${name} failed to start, retrying`, e);
      const t = setTimeout(() => {
        if (!this.stopped && !loop.active && this.leadership.isHeld(name)) this.activate(name);
      }, 1000);
      t.unref();
    });
  }

  /** Connects LISTEN and starts contending for the projections' locks. */
  async start(): Promise<void> {
    await this.listen.connect();
    this.leadership.start();
  }

  /** The projections this process is running right now. */
  activeProjections(): string[] {
    return [...this.loops.values()].filter((l) => l.active).map((l) => l.def.name);
  }

  /** Stops every loop (waiting for a batch in flight), then releases the locks. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    for (const l of this.loops.values()) l.deactivate();
    await Promise.all([...this.loops.values()].map((l) => l.done));
    await this.leadership.close();
    await this.listen.close();
  }

  private wakeAll(): void {
    for (const l of this.loops.values()) if (l.active) l.wake();
  }
}
