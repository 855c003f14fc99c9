import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../../..');
export const HUB_BIN = resolve(REPO_ROOT, 'bin/hub');

/**
 * What every hub process a test starts inherits from the test run: `HUB_RUN_FROM=dist` when the
 * suite built the production build first (tools/scripts/test-all.sh does, so hundreds of process
 * starts skip compiling TypeScript); otherwise nothing, and `bin/hub` runs the sources.
 */
export const RUN_FROM_ENV: Readonly<Record<string, string>> = process.env.HUB_RUN_FROM ? { HUB_RUN_FROM: process.env.HUB_RUN_FROM } : {};

/** A child process of the hub (`bin/hub ingress|worker|…`) with its stderr kept for diagnosis. */
export class HubProcess {
  readonly child: ChildProcess;
  stderr = '';
  stdout = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(HUB_BIN, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...RUN_FROM_ENV, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.exited = new Promise((res) => this.child.once('exit', (code) => res(code)));
  }

  /** Resolves with the first stderr JSON line whose `msg` is `msg`. */
  async waitForLog(msg: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const line of this.stderr.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = safeJson(line);
        if (parsed && parsed.msg === msg) return parsed;
      }
      if (this.child.exitCode !== null) throw new Error(`process exited (${this.child.exitCode}) before "${msg}":\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no "${msg}" within ${timeoutMs} ms:\n${this.stderr}`);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

function safeJson(line: string): Record<string, unknown> | null {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null; // a log line that is not JSON: not the one we wait for
  }
}
