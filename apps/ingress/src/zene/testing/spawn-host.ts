import { spawn } from 'node:child_process';
import { HUB_BIN, RUN_FROM_ENV } from '@hub/testing';

/** What clawbridge sees of one `hub host` run. */
export interface HostRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every non-empty stdout line, parsed (a line that is not JSON fails the parse loudly). */
  lines: Record<string, unknown>[];
  /** The first non-empty stdout line, which is all clawbridge reads. */
  first: Record<string, unknown>;
}

export interface HostOptions {
  hubUrl: string;
  apiKey: string | null;
  args?: string[];
  /**
   * Bytes for stdin, then it is closed; `'none'`: stdin is /dev/null from the start;
   * `'interactive'`: left open for `onSpawn` to write to and end.
   */
  input: string | Buffer | 'none' | 'interactive';
  /** PATH and HOME at least (the caller's own: only specs read the environment). */
  baseEnv: Record<string, string>;
  env?: Record<string, string>;
  /** Called once the child runs, e.g. to watch the session while it works. */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
}

export const BRIDGE_ARGS = ['host', '--protocol', 'v1', '--bridge-compat', '--single-request'];

/**
 * Runs `bin/hub host` the way clawbridge's command provider does: one line written to stdin,
 * stdin closed, stdout and the exit status read when it exits.
 */
export function runHost(opts: HostOptions): Promise<HostRun> {
  const env: Record<string, string> = { ...RUN_FROM_ENV, ...opts.baseEnv, HUB_URL: opts.hubUrl, LOG_LEVEL: 'warn', ...opts.env };
  if (opts.apiKey !== null) env.HUB_API_KEY = opts.apiKey;
  const child = spawn(HUB_BIN, opts.args ?? BRIDGE_ARGS, { env, stdio: [opts.input === 'none' ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // The host may answer (and exit) before it read all of a huge line: that is EPIPE here, fine.
  child.stdin?.on('error', () => undefined);
  if (opts.input !== 'none' && opts.input !== 'interactive') child.stdin?.end(opts.input);
  opts.onSpawn?.(child);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      const lines = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, stdout, stderr, lines, first: lines[0] ?? {} });
    });
  });
}

/** One bridge-compat run request line. */
export function runLine(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ protocol_version: 1, type: 'run', ...fields })}\n`;
}

/** Keys and JSON types, recursively: what "the same shape as the fixture" means. */
export function shapeOf(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.map(shapeOf);
  if (typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as object)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x)]),
    );
  return typeof v;
}

export const PROTOCOL_ARGS = ['host', '--protocol', 'v1', '--single-request', 'false'];

/** A long-lived `hub host` in protocol mode, written to line by line while it answers. */
export class LiveHost {
  readonly done: Promise<HostRun>;
  private child!: ReturnType<typeof spawn>;
  private out = '';

  constructor(opts: Omit<HostOptions, 'input' | 'onSpawn'>) {
    this.done = runHost({
      args: PROTOCOL_ARGS,
      ...opts,
      input: 'interactive',
      onSpawn: (child) => {
        this.child = child;
        child.stdout?.on('data', (d: Buffer) => (this.out += d.toString()));
      },
    });
  }

  send(request: Record<string, unknown>): void {
    this.child.stdin?.write(`${JSON.stringify(request)}\n`);
  }

  /** Every line written so far. */
  get lines(): Record<string, unknown>[] {
    return this.out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  async waitForLine(pred: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such line within ${timeoutMs} ms; got:\n${this.out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  end(): Promise<HostRun> {
    this.child.stdin?.end();
    return this.done;
  }
}
