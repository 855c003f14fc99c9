import type { AdapterOptions } from './adapter';
import { HarnessChild } from './harness-child';
import { HarnessError } from './harness-errors';
import type { ExternalHarnessSpec } from './harness-spec';

/**
 * What every adapter of a spawned harness process shares, whatever protocol it speaks: its
 * `HarnessChild` and the process accessors the runner and `HarnessProcesses` read (`pid`,
 * `exited`, `isAlive`), the stop flag, and the HARNESS_STOPPED error a turn ends with when its
 * process was stopped on purpose.
 */
export abstract class ProcessAdapter {
  protected child?: HarnessChild;
  protected stopping = false;

  constructor(
    readonly spec: ExternalHarnessSpec,
    private readonly opts: AdapterOptions,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exited(): Promise<unknown> {
    return this.child?.exited ?? Promise.resolve();
  }

  isAlive(): boolean {
    return this.child?.alive ?? false;
  }

  /** Stops the process and waits until it is gone; a running turn then fails with HARNESS_STOPPED. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.child?.stop();
  }

  /** Spawns the harness process (its own process group, `spec.env_vars` over the base environment). */
  protected spawnChild(): HarnessChild {
    return (this.child = new HarnessChild(this.spec, this.opts.baseEnv, this.opts.killGraceMs));
  }

  protected stoppedDuringTurn(): HarnessError {
    return new HarnessError('HARNESS_STOPPED', `harness ${this.spec.name} was stopped during the turn`);
  }
}
