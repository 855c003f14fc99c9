import { createLogger, type Logger } from './logger';

/**
 * Whether one dependency (Postgres, Redis) is reachable, as this process saw it last, logged
 * once per change: one line when it goes down (with the first error), one when it is back.
 * A client library retrying every few hundred milliseconds must not write a line (or a stack)
 * per retry: an outage of Redis printed 91 stack traces in 4 s before (issue 17).
 */
export class DependencyState {
  private down_ = false;
  private since = 0;

  constructor(
    readonly name: string,
    private readonly log: Logger = createLogger('dependency'),
    private readonly now: () => number = Date.now,
  ) {}

  get isDown(): boolean {
    return this.down_;
  }

  /** A failure of the dependency itself (refused, reset, timed out). Logged only on the change. */
  down(error: unknown): void {
    if (this.down_) return;
    this.down_ = true;
    this.since = this.now();
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(
      { dependency: this.name, state: 'down', error: message },
      `${this.name} is unreachable: ${message} (retrying; logged again when it is back)`,
    );
  }

  /** The dependency answered again. Logged only on the change, with how long it was away. */
  up(): void {
    if (!this.down_) return;
    this.down_ = false;
    const downMs = this.now() - this.since;
    this.log.info({ dependency: this.name, state: 'up', downMs }, `${this.name} is reachable again after ${downMs} ms`);
  }
}

const states = new Map<string, DependencyState>();

/** The process-wide state of `name`: every client of one dependency reports to the same one. */
export function dependencyState(name: string): DependencyState {
  let s = states.get(name);
  if (!s) states.set(name, (s = new DependencyState(name)));
  return s;
}
