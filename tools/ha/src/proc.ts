import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

// The suite's servers are child processes of its own (Debian's binaries), started as the
// postgres user where Postgres needs it.

/** The postgres user's ids when the suite runs as root (Patroni and PgBouncer refuse root); none otherwise. */
export function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

/** A child process whose stderr/stdout tail is kept for a failing run's report. */
export class Proc {
  log = '';
  readonly child: ChildProcess;
  constructor(cmd: string, args: string[], opts: { uid?: number; gid?: number; cwd?: string } = {}) {
    // detached: its own process group, so kill9 takes a Patroni node with its Postgres.
    this.child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  /** kill -9 of the whole process group: a machine that is gone, not a process that stops. */
  async kill9(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    try {
      process.kill(-(this.child.pid ?? 0), 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
    await exited;
  }
}

/** Status of a GET to `url` within 1 s (Patroni's REST API, etcd's health). */
export async function httpStatus(url: string): Promise<number> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await res.body?.cancel();
  return res.status;
}
