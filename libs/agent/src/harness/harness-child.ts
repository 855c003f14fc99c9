import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { HarnessError } from './harness-errors';
import type { ExternalHarnessSpec } from './harness-spec';

/** How a harness process ended: exit code, or the signal that killed it. */
export interface HarnessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines it wrote to stderr, for the failure message. */
  stderrTail: string;
}

export const describeExit = (e: HarnessExit) => (e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`);

const STDERR_TAIL_CHARS = 2000;
const DEFAULT_KILL_GRACE_MS = 3000;

/**
 * One spawned harness process with its own process group, so stopping it stops whatever it
 * started too (a wrapper script, an `npx` shim): SIGTERM to the group, SIGKILL after a grace,
 * and `stop()` resolves only once the process is reaped — no zombies, no orphans left running.
 * It runs in `working_directory` when that exists on this host, else in a fresh private temp
 * directory removed at exit (the hub has no container: RFC 005's `/workspace` is rarely there).
 */
export class HarnessChild {
  readonly process: ChildProcess;
  readonly exited: Promise<HarnessExit>;
  readonly cwd: string;
  private stderr = '';
  private exit: HarnessExit | null = null;
  private readonly tempDir: string | null;

  constructor(
    spec: ExternalHarnessSpec,
    baseEnv: Record<string, string>,
    private readonly killGraceMs = DEFAULT_KILL_GRACE_MS,
  ) {
    this.tempDir =
      path.isAbsolute(spec.working_directory) && existsSync(spec.working_directory)
        ? null
        : mkdtempSync(path.join(tmpdir(), `hub-harness-${spec.name.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
    this.cwd = this.tempDir ?? spec.working_directory;
    const [cmd, ...args] = spec.command;
    this.process = spawn(cmd, args, { cwd: this.cwd, env: { ...baseEnv, ...spec.env_vars }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.process.stderr?.setEncoding('utf8');
    this.process.stderr?.on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS)));
    // A write after the process died surfaces as EPIPE here; the exit is what reports it.
    this.process.stdin?.on('error', () => undefined);
    this.exited = new Promise<HarnessExit>((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.exit) return;
        this.exit = { code, signal, stderrTail: this.stderr.trim().split('\n').slice(-10).join('\n') };
        if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
        this.reapGroup();
        resolve(this.exit);
      };
      this.process.once('exit', done);
      this.process.once('error', (e) => {
        this.stderr += `\n${e.message}`;
        done(null, null);
      });
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** Resolves once the process runs; rejects when it could not start (no such command, ...). */
  spawned(): Promise<void> {
    if (this.process.pid !== undefined && this.exit === null) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.process.once('spawn', () => resolve());
      void this.exited.then((e) => reject(new HarnessError('HARNESS_START_FAILED', `harness process did not start: ${e.stderrTail || describeExit(e)}`)));
    });
  }

  /** A rejection once the process has ended: raced against every wait on it. */
  async crashed(during: string): Promise<never> {
    const e = await this.exited;
    throw new HarnessError('HARNESS_CRASHED', `harness ${describeExit(e)} ${during}${e.stderrTail ? `; stderr: ${e.stderrTail}` : ''}`);
  }

  /** SIGTERM to the process group, SIGKILL after the grace; resolves when the process is reaped. */
  async stop(): Promise<HarnessExit> {
    if (this.exit) return this.exit;
    this.process.stdin?.end();
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), this.killGraceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** What the leader started may outlive it: the group goes with it. */
  private reapGroup(): void {
    const pid = this.process.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.process.pid;
    if (pid === undefined || this.exit) return;
    try {
      process.kill(-pid, sig);
    } catch (e) {
      // ESRCH: the group is already gone; the direct kill covers a process that left its group.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      this.process.kill(sig);
    }
  }
}
