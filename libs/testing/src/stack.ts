import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStore, createPool, verifyChains } from '@hub/event-store';
import { sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { createTestDatabase } from './postgres';
import { unattributedEvents } from './attribution';
import { HubProcess } from './processes';
import { TEST_REDIS_URL, uniqueQueuePrefix } from './redis';

export interface StackOptions {
  label: string;
  workers?: number;
  /** Extra environment for every worker (e.g. HUB_OFFLINE_DELAY_MS, HUB_WORKER_LOCK_MS). */
  workerEnv?: Record<string, string>;
  ingressEnv?: Record<string, string>;
  /** The Redis the stack uses (default TEST_REDIS_URL): a benchmark's private server, say. */
  redisUrl?: string;
}

/**
 * A whole hub for end-to-end tests: a fresh database (migrated as its owner), a unique queue
 * prefix, one ingress and N worker processes started through `bin/hub` exactly as in
 * production: connected as the apps' login role, under row-level security.
 */
export class HubStack {
  readonly workers: HubProcess[] = [];
  /** Ingress processes beside the first (`addIngress`), each on its own port. */
  readonly moreIngresses: HubProcess[] = [];
  ingress!: HubProcess;
  url = '';
  /** On the owner's URL: what the tests look at is what is stored, whatever the hub's scopes. */
  private pool!: ReturnType<typeof createPool>;

  private constructor(
    readonly opts: StackOptions,
    /** The owner's (the test server's superuser): for a test that looks, or breaks something, behind the hub's back. */
    readonly databaseUrl: string,
    /** What the hub's processes and `cli()` connect as (`DATABASE_URL`): the apps' login role. */
    readonly appDatabaseUrl: string,
    readonly queuePrefix: string,
    private readonly cleanups: (() => Promise<void>)[],
  ) {}

  static async start(opts: StackOptions): Promise<HubStack> {
    const db = await createTestDatabase({ prefix: opts.label });
    const q = uniqueQueuePrefix(opts.label, opts.redisUrl);
    const stack = new HubStack(opts, db.ownerUrl, db.url, q.prefix, [q.cleanup, db.drop]);
    stack.pool = createPool(db.ownerUrl, { max: 4 });
    try {
      // Ingress and workers start side by side: neither waits for the other, and each start is
      // mostly a process loading its modules, which the other core can do meanwhile.
      const started = await Promise.allSettled([stack.startIngress(), ...Array.from({ length: opts.workers ?? 1 }, () => stack.addWorker())]);
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    } catch (e) {
      await stack.stop();
      throw e;
    }
    return stack;
  }

  baseEnv(): Record<string, string> {
    return { DATABASE_URL: this.appDatabaseUrl, REDIS_URL: this.opts.redisUrl ?? TEST_REDIS_URL, HUB_QUEUE_PREFIX: this.queuePrefix, LOG_LEVEL: 'warn' };
  }

  /** An ingress process on a free port of its own (not yet listening: see {@link listeningUrl}). */
  private spawnIngress(env: Record<string, string> = {}): HubProcess {
    return new HubProcess(['ingress'], { ...this.baseEnv(), PORT: '0', HOST: '127.0.0.1', ...this.opts.ingressEnv, ...env });
  }

  private async startIngress(): Promise<void> {
    this.ingress = this.spawnIngress();
    this.url = await listeningUrl(this.ingress);
  }

  /**
   * Stops the ingress (SIGTERM, as a deploy does; SIGKILL, as a crash does) and starts a new one
   * on a new port (`url` changes).
   */
  async restartIngress(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.ingress.kill(signal);
    await this.startIngress();
  }

  /** Another ingress on the same database and Redis (a second instance behind a load balancer): its process and URL. */
  async addIngress(env: Record<string, string> = {}): Promise<{ process: HubProcess; url: string }> {
    const p = this.spawnIngress(env);
    this.moreIngresses.push(p);
    return { process: p, url: await listeningUrl(p) };
  }

  async addWorker(env: Record<string, string> = {}): Promise<HubProcess> {
    const w = new HubProcess(['worker'], { ...this.baseEnv(), HUB_OFFLINE_DELAY_MS: '0', ...this.opts.workerEnv, ...env });
    // Listed before it is up, so that stop() ends it even when it never starts.
    this.workers.push(w);
    await w.waitForLog('worker started');
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
    // Every process of the stack: test-all.sh's check that no API key was logged reads only these files.
    const parts = [
      ['ingress', this.ingress] as const,
      ...this.moreIngresses.map((p, i) => [`ingress ${i + 2}`, p] as const),
      ...this.workers.map((w, i) => [`worker ${i + 1}`, w] as const),
    ].filter(([, p]) => p);
    writeFileSync(join(dir, `${this.opts.label}-${this.queuePrefix}.log`), parts.map(([name, p]) => `== ${name}\n${p.stderr}`).join('\n'));
  }

  async events(tenantId: string, sessionId: string): Promise<Recorded<HubEvent>[]> {
    const { events } = await new EventStore(this.pool).readStream<HubEvent>(tenantId, sessionStreamId(sessionId));
    return events as Recorded<HubEvent>[];
  }

  /** Every event of one stream of a tenant, by stream id (e.g. `tenant-admin`). */
  async streamEvents(tenantId: string, streamId: string): Promise<Recorded<{ type: string; data: Record<string, unknown> }>[]> {
    const { events } = await new EventStore(this.pool).readStream(tenantId, streamId);
    return events as unknown as Recorded<{ type: string; data: Record<string, unknown> }>[];
  }

  /** `hub replay --all`: the differences it printed (none when the stored state is what the log says). */
  private async replayAll(): Promise<unknown[]> {
    // A read model with no projector left (every worker killed) is left out rather than failing
    // the file, and said on stderr; one still catching up is waited for.
    const res = await this.cli(['replay', '--all', '--wait', '10', '--skip-lagging']);
    const lines = res.stdout.trim().split('\n').filter(Boolean);
    const summary = (() => {
      try {
        return JSON.parse(lines.at(-1) ?? '{}') as { lagging?: number };
      } catch {
        return {}; // not a summary: the CLI failed, reported below with its stderr
      }
    })();
    if (summary.lagging)
      process.stderr.write(`${this.opts.label}: replay left out ${summary.lagging} read-model comparisons whose projection had not caught up\n`);
    if (res.code === 0) return [];
    return lines.length > 1 ? lines.slice(0, -1) : [{ code: res.code, stderr: res.stderr.slice(0, 1000) }];
  }

  /** A look at the stack's database for what no API shows (that a deleted row is gone, say). */
  async query<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(sql, params)).rows as R[];
  }

  /**
   * Events on session (and environment) streams: what a protocol request may append. The
   * administration events of `createTenant` / `revokeKey` (stream `tenant-admin`) are not counted.
   */
  async countAllEvents(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE stream_id <> 'tenant-admin'`);
    return Number(rows[0].n);
  }

  /**
   * Replays every session the test wrote against its snapshot and read models, stops the
   * processes, then checks the hash chain of every stream and that every event names who, how
   * and in which request (issue 15: replay, verify and attribution hold for every session the
   * suite creates) before the database is dropped; a difference, a broken chain or an
   * unattributed event fails the test file.
   */
  async stop(): Promise<void> {
    // Before the processes go (replay needs the running projector to have caught up), through
    // the real CLI: `hub replay --all` over every session this stack's tests wrote.
    const replayed = this.pool ? await this.replayAll() : [];
    await Promise.all([...this.workers, this.ingress, ...this.moreIngresses].filter(Boolean).map((p) => p.kill('SIGKILL')));
    this.keepLogs();
    const chains = this.pool ? await verifyChains(this.pool).catch((e: unknown) => ({ broken: [{ detail: `verify failed: ${String(e)}` }] })) : { broken: [] };
    const unattributed = this.pool ? await unattributedEvents(this.pool).catch((e: unknown) => [{ detail: `check failed: ${String(e)}` }]) : [];
    await this.pool?.end();
    for (const c of this.cleanups) await c().catch((e: unknown) => process.stderr.write(`cleanup failed: ${String(e)}\n`));
    // Every finding at once, so one failure does not hide another.
    const problems = [
      chains.broken.length > 0 ? `hash chains broken in ${this.opts.label}: ${JSON.stringify(chains.broken).slice(0, 2000)}` : '',
      replayed.length > 0 ? `replay differs from the stored state in ${this.opts.label}: ${JSON.stringify(replayed).slice(0, 2000)}` : '',
      unattributed.length > 0 ? `events without who, how or which request in ${this.opts.label}: ${JSON.stringify(unattributed).slice(0, 2000)}` : '',
    ].filter(Boolean);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  }
}

/** The URL an ingress process listens on, once it says so. */
async function listeningUrl(ingress: HubProcess): Promise<string> {
  const line = await ingress.waitForLog('ingress listening');
  return String(line.url).replace('[::1]', '127.0.0.1');
}
