import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore, createPool } from '@hub/event-store';
import { sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { createTestDatabase } from './postgres';
import { HubProcess } from './processes';
import { TEST_REDIS_URL, uniqueQueuePrefix } from './redis';

export interface StackOptions {
  label: string;
  workers?: number;
  /** Extra environment for every worker (e.g. HUB_OFFLINE_DELAY_MS, HUB_WORKER_LOCK_MS). */
  workerEnv?: Record<string, string>;
  ingressEnv?: Record<string, string>;
}

/**
 * A whole hub for end-to-end tests: a fresh database, a unique queue prefix, one ingress and N
 * worker processes started through `bin/hub` exactly as in production.
 */
export class HubStack {
  readonly workers: HubProcess[] = [];
  ingress!: HubProcess;
  url = '';
  private pool!: ReturnType<typeof createPool>;

  private constructor(
    readonly opts: StackOptions,
    readonly databaseUrl: string,
    readonly queuePrefix: string,
    private readonly cleanups: (() => Promise<void>)[],
  ) {}

  static async start(opts: StackOptions): Promise<HubStack> {
    const db = await createTestDatabase({ prefix: opts.label });
    const q = uniqueQueuePrefix(opts.label);
    const stack = new HubStack(opts, db.url, q.prefix, [q.cleanup, db.drop]);
    stack.pool = createPool(db.url, { max: 4 });
    try {
      await stack.startIngress();
      for (let i = 0; i < (opts.workers ?? 1); i++) await stack.addWorker();
    } catch (e) {
      await stack.stop();
      throw e;
    }
    return stack;
  }

  baseEnv(): Record<string, string> {
    return { DATABASE_URL: this.databaseUrl, REDIS_URL: TEST_REDIS_URL, HUB_QUEUE_PREFIX: this.queuePrefix, LOG_LEVEL: 'warn' };
  }

  private async startIngress(): Promise<void> {
    this.ingress = new HubProcess(['ingress'], { ...this.baseEnv(), PORT: '0', HOST: '127.0.0.1', ...this.opts.ingressEnv });
    const line = await this.ingress.waitForLog('ingress listening');
    this.url = String(line.url).replace('[::1]', '127.0.0.1');
  }

  async addWorker(env: Record<string, string> = {}): Promise<HubProcess> {
    const w = new HubProcess(['worker'], { ...this.baseEnv(), HUB_OFFLINE_DELAY_MS: '0', ...this.opts.workerEnv, ...env });
    await w.waitForLog('worker started');
    this.workers.push(w);
    return w;
  }

  /** Runs `bin/hub` (the real CLI) against this stack's database and returns its exit code and stdout. */
  async cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const p = new HubProcess(args, { ...this.baseEnv(), ...env });
    p.child.stdin?.end();
    const code = await p.exited;
    return { code, stdout: p.stdout, stderr: p.stderr };
  }

  /** A new tenant through `bin/hub tenant create`, exactly as an operator makes one. */
  async createTenant(name = 'tenant'): Promise<{ tenantId: string; apiKey: string; keyPrefix: string }> {
    const res = await this.cli(['tenant', 'create', name]);
    if (res.code !== 0) throw new Error(`hub tenant create failed (${res.code}): ${res.stderr}`);
    const created = JSON.parse(res.stdout) as { tenantId: string; apiKey: string };
    return { ...created, keyPrefix: created.apiKey.slice(0, 'hub_'.length + 12) };
  }

  async revokeKey(prefix: string): Promise<void> {
    const res = await this.cli(['key', 'revoke', prefix]);
    if (res.code !== 0) throw new Error(`hub key revoke failed (${res.code}): ${res.stdout} ${res.stderr}`);
  }

  /**
   * Writes what the stack's processes logged to `HUB_TEST_LOG_DIR` (when set), one file per
   * stack, so a failure in a long run (CI) can be read afterwards: test-all.sh prints their
   * error lines when the suite fails. A stack's logs are otherwise gone with its processes.
   */
  private keepLogs(): void {
    const dir = process.env.HUB_TEST_LOG_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const parts = [['ingress', this.ingress] as const, ...this.workers.map((w, i) => [`worker ${i + 1}`, w] as const)].filter(([, p]) => p);
    writeFileSync(join(dir, `${this.opts.label}-${this.queuePrefix}.log`), parts.map(([name, p]) => `== ${name}\n${p.stderr}`).join('\n'));
  }

  async events(tenantId: string, sessionId: string): Promise<Recorded<HubEvent>[]> {
    const { events } = await new EventStore(this.pool).readStream<HubEvent>(tenantId, sessionStreamId(sessionId));
    return events as Recorded<HubEvent>[];
  }

  async countAllEvents(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM events');
    return Number(rows[0].n);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.workers, this.ingress].filter(Boolean).map((p) => p.kill('SIGKILL')));
    this.keepLogs();
    await this.pool?.end();
    for (const c of this.cleanups) await c().catch((e: unknown) => process.stderr.write(`cleanup failed: ${String(e)}\n`));
  }
}
