import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';

/** What the gate reads each tick. */
export interface LoadSignals {
  /** The event loop's p99 delay over the last tick, in ms. */
  loopDelayMs: number;
  /** Appends waiting for their group commit (Postgres behind this process). */
  appendBacklog: number;
  /** Turns this process runs now. */
  running: number;
}

export interface GateLimits {
  /** The most turns at once (`HUB_WORKER_CONCURRENCY`): the gate never opens wider. */
  max: number;
  /** The fewest it ever closes to (a process that runs nothing learns nothing). */
  min: number;
  /** Event-loop delay above which the process is overloaded (its streams would stutter). */
  loopDelayMs: number;
  /** Append backlog above which Postgres is behind. */
  appendBacklog: number;
}

/**
 * The next limit on turns taken at once, AIMD: overloaded (the event loop lags or appends back
 * up), it closes to 80 % of what runs now; otherwise it opens by a tenth of the maximum per
 * tick. Turns already running are never stopped: the limit only holds back new ones.
 */
export function nextLimit(limit: number, s: LoadSignals, l: GateLimits): number {
  const overloaded = s.loopDelayMs > l.loopDelayMs || s.appendBacklog > l.appendBacklog;
  if (overloaded) return Math.max(l.min, Math.min(limit, Math.floor(s.running * 0.8)));
  return Math.min(l.max, limit + Math.max(1, Math.ceil(l.max / 10)));
}

/** Something whose intake the gate sets (a BullMQ worker's `concurrency`). */
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
  private readonly delay: ELDHistogram;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intakes: readonly Intake[],
    private readonly signals: () => Omit<LoadSignals, 'loopDelayMs'>,
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

  start(): void {
    this.delay.enable();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  private tick(): void {
    const signals = { ...this.signals(), loopDelayMs: this.loopDelayMs() };
    this.delay.reset();
    const next = nextLimit(this.limit, signals, this.limits);
    if (next === this.limit) return;
    this.limit = next;
    for (const intake of this.intakes) intake.concurrency = next;
  }

  stop(): void {
    clearInterval(this.timer);
    this.delay.disable();
  }
}
