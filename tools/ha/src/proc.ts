import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';

// The suite's servers are child processes of its own (Debian's binaries), started as the
// postgres user where Postgres needs it.

/** The postgres user's ids when the suite runs as root (Patroni and PgBouncer refuse root); none otherwise. */
export function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

/**
 * A child process whose stderr/stdout tail is kept for a failing run's report. With HA_LOG_DIR
 * set, its whole output is also appended to `<HA_LOG_DIR>/<label>.log` (a Patroni node's file
 * holds its Postgres's log too: Patroni starts the postmaster on its own stdout and stderr).
 */
export class Proc {
  log = '';
  readonly child: ChildProcess;
  private partial = '';
  private readonly counters: { re: RegExp; n: number }[] = [];
  constructor(cmd: string, args: string[], opts: { uid?: number; gid?: number; cwd?: string; label?: string } = {}) {
    const { label, ...spawnOpts } = opts;
    // detached: its own process group, so kill9 takes a Patroni node with its Postgres.
    this.child = spawn(cmd, args, { ...spawnOpts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const dir = process.env.HA_LOG_DIR;
    let file: ReturnType<typeof createWriteStream> | undefined;
    if (dir && label) {
      mkdirSync(dir, { recursive: true });
      file = createWriteStream(join(dir, `${label}.log`), { flags: 'a' });
      this.child.once('exit', () => file?.end());
    }
    const keep = (d: Buffer) => {
      file?.write(d);
      this.log = (this.log + d.toString()).slice(-20_000);
      if (!this.counters.length) return;
      const lines = (this.partial + d.toString()).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) for (const c of this.counters) if (c.re.test(line)) c.n++;
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }
  /**
   * Counts, from now on, the output lines that match `re` (all of them: the kept tail may have
   * lost them by the time they are asked for). Resolves to the count so far.
   */
  countLines(re: RegExp): () => number {
    const c = { re, n: 0 };
    this.counters.push(c);
    return () => c.n;
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
