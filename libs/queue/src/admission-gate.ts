import { monitorEventLoopDelay, performance, type ELDHistogram } from 'node:perf_hooks';

/** What the gate reads each tick. */
export interface LoadSignals {
  /** The event loop's p99 delay over the last tick, in ms. */
  loopDelayMs: number;
  /** CPU this process used over the last tick, in cores (1: one core busy the whole tick). */
  cpuCores: number;
  /** Appends waiting for their group commit (Postgres behind this process). */
  appendBacklog: number;
  /** Turns this process runs now. */
  running: number;
  /** Ticks in a row, this one included, that found the process overloaded (see {@link isOverloaded}). */
  overloadedTicks: number;
}

export interface GateLimits {
  /** The most turns at once (`HUB_WORKER_CONCURRENCY`): the gate never opens wider. */
  max: number;
  /** The fewest it ever closes to (a process that runs nothing learns nothing). */
  min: number;
  /** Event-loop delay above which the process is overloaded (its streams would stutter)... */
  loopDelayMs: number;
  /**
   * ...when it also used at least this much CPU, in cores (default 0.75). A loop that lags while
   * the process itself is mostly idle waits for a core that others hold (a shared box, a noisy
   * neighbour): taking fewer turns would not shorten its delay, only queue turns it could run.
   */
  cpuCores?: number;
  /** Append backlog above which Postgres is behind. */
  appendBacklog: number;
  /**
   * Overloaded ticks in a row before the gate closes (default 2). One tick alone is what a burst
   * of arrivals does to the loop as the turns start (their session loads, their first appends),
   * not a crowd the process cannot carry: closing then only queued turns it could run.
   */
  sustainTicks?: number;
}

/**
 * Whether one tick's signals say the process is overloaded: its event loop lags while it is busy
 * itself, or appends back up behind Postgres.
 */
export function isOverloaded(s: Pick<LoadSignals, 'loopDelayMs' | 'cpuCores' | 'appendBacklog'>, l: GateLimits): boolean {
  return (s.loopDelayMs > l.loopDelayMs && s.cpuCores >= (l.cpuCores ?? 0.75)) || s.appendBacklog > l.appendBacklog;
}

/**
 * The next limit on turns taken at once, AIMD: overloaded for `sustainTicks` ticks in a row, it
 * closes to 80 % of what runs now; overloaded for fewer, it holds; calm, it opens by a tenth of
 * the maximum per tick. Turns already running are never stopped: the limit only holds back new ones.
 */
export function nextLimit(limit: number, s: LoadSignals, l: GateLimits): number {
  if (s.overloadedTicks >= (l.sustainTicks ?? 2)) return Math.max(l.min, Math.min(limit, Math.floor(s.running * 0.8)));
  if (s.overloadedTicks > 0) return limit;
  return Math.min(l.max, limit + Math.max(1, Math.ceil(l.max / 10)));
}

/** Something whose intake the gate sets (a BullMQ worker's `concurrency`; several share the limit). */
export interface Intake {
  concurrency: number;
}

/**
 * Turns in flight bounded by what the process can carry, not by a fixed slot count (ADR 0028):
 * every `tickMs` the gate reads the event loop's delay and the append backlog and sets the
 * intake's concurrency with {@link nextLimit}. A turn waiting on its model costs almost nothing,
 * so a worker takes up to `max`; when the crowd makes the loop lag or Postgres fall behind, it
 * takes fewer until they recover, and the rest wait in the queue (where another worker can take
 * them) instead of stretching every stream already running.
 */
export class AdmissionGate {
  private limit: number;
  private overloadedTicks = 0;
  private cpuAt = { usage: process.cpuUsage(), at: performance.now() };
  private readonly delay: ELDHistogram;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intakes: readonly Intake[],
    private readonly signals: () => Omit<LoadSignals, 'loopDelayMs' | 'cpuCores' | 'overloadedTicks'>,
    private readonly limits: GateLimits,
    private readonly tickMs = 1000,
  ) {
    this.limit = limits.max;
    this.delay = monitorEventLoopDelay({ resolution: 10 });
  }

  /** Turns the gate lets in at once now. */
  get current(): number {
    return this.limit;
  }

  /** The last tick's p99 event-loop delay, in ms. */
  loopDelayMs(): number {
    return this.delay.percentile(99) / 1e6;
  }

  /** The CPU this process used since the last call, in cores. */
  private cpuCores(): number {
    const now = { usage: process.cpuUsage(), at: performance.now() };
    const used = process.cpuUsage(this.cpuAt.usage);
    const cores = (used.user + used.system) / 1000 / Math.max(1, now.at - this.cpuAt.at);
    this.cpuAt = now;
    return cores;
  }

  start(): void {
    this.cpuAt = { usage: process.cpuUsage(), at: performance.now() };
    this.delay.enable();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  private tick(): void {
    const read = { ...this.signals(), loopDelayMs: this.loopDelayMs(), cpuCores: this.cpuCores() };
    this.delay.reset();
    this.overloadedTicks = isOverloaded(read, this.limits) ? this.overloadedTicks + 1 : 0;
    const signals = { ...read, overloadedTicks: this.overloadedTicks };
    const next = nextLimit(this.limit, signals, this.limits);
    if (next === this.limit) return;
    this.limit = next;
    // Several fetchers on one queue (TURN_FETCHERS) share the limit.
    for (const intake of this.intakes) intake.concurrency = Math.max(1, Math.ceil(next / this.intakes.length));
  }

  stop(): void {
    clearInterval(this.timer);
    this.delay.disable();
  }
}
