import { resolve } from 'node:path';
import { Pool } from 'pg';
import { devAppUrl, ensureAppLogin, migrate } from '@hub/event-store';
import { HubProcess, REPO_ROOT, TransportTestClient } from '@hub/testing';
import type { OwnPostgres, OwnRedis } from './own-services';

/**
 * Settings that make faults show within seconds: a 2 s BullMQ lock and reconcile interval. No
 * borrowed slots: a worker fetches exactly its 3, so more turns than the workers' slots leave
 * jobs waiting in Redis (what a Redis loss without AOF must lose, and the reconciler find).
 */
export const FAULT_WORKER_ENV = {
  HUB_OFFLINE_DELAY_MS: '15',
  HUB_WORKER_CONCURRENCY: '3',
  HUB_WORKER_BURST_SLOTS: '0',
  HUB_WORKER_LOCK_MS: '2000',
  HUB_RECONCILE_INTERVAL_MS: '2000',
};

/** What the log says about a set of sessions once the fault is over. */
export interface Ledger {
  acknowledged: number;
  completed: number;
  lost: number;
  /** Turns whose text deltas do not tile their final text exactly once, or that ended twice. */
  duplicated: number;
}

/** One ingress and N workers (`bin/hub`, as in production) on the suite's own Postgres and Redis. */
export class FaultHub {
  ingress!: HubProcess;
  url = '';
  readonly workers: HubProcess[] = [];
  /** The owner's: the ledger reads what is stored, behind the hub's back. */
  readonly pool: Pool;
  apiKey = '';
  tenantId = '';

  private constructor(
    readonly pg: Pick<OwnPostgres, 'url'>,
    readonly redis: Pick<OwnRedis, 'url'>,
    /** Settings every hub process of this hub also gets (the HA suite's Redis Sentinels). */
    private readonly extraEnv: Record<string, string> = {},
  ) {
    this.pool = new Pool({ connectionString: pg.url, max: 4 });
    this.pool.on('error', () => undefined); // Postgres is stopped on purpose; queries report their own failures
  }

  static async start(pg: Pick<OwnPostgres, 'url'>, redis: Pick<OwnRedis, 'url'>, workers: number, extraEnv: Record<string, string> = {}): Promise<FaultHub> {
    // As production: migrated by the owner, the processes on a login of their own (row-level security).
    await migrate(pg.url, { migrationsDir: resolve(REPO_ROOT, 'prisma/migrations') });
    await ensureAppLogin(pg.url, devAppUrl(pg.url));
    const hub = new FaultHub(pg, redis, extraEnv);
    await hub.startIngress();
    for (let i = 0; i < workers; i++) await hub.addWorker();
    const created = new HubProcess(['tenant', 'create', 'faults'], hub.env());
    created.child.stdin?.end();
    if ((await created.exited) !== 0) throw new Error(`tenant create failed: ${created.stderr}`);
    ({ apiKey: hub.apiKey, tenantId: hub.tenantId } = JSON.parse(created.stdout) as { apiKey: string; tenantId: string });
    return hub;
  }

  env(): Record<string, string> {
    return { DATABASE_URL: devAppUrl(this.pg.url), REDIS_URL: this.redis.url, HUB_QUEUE_PREFIX: 'faults', LOG_LEVEL: 'warn', ...this.extraEnv };
  }

  async startIngress(): Promise<void> {
    this.ingress = new HubProcess(['ingress'], { ...this.env(), PORT: '0', HOST: '127.0.0.1' });
    const line = await this.ingress.waitForLog('ingress listening', 60_000);
    this.url = String(line.url).replace('[::1]', '127.0.0.1');
  }

  async addWorker(): Promise<HubProcess> {
    const w = new HubProcess(['worker'], { ...this.env(), ...FAULT_WORKER_ENV });
    await w.waitForLog('worker started', 60_000);
    this.workers.push(w);
    return w;
  }

  live(): HubProcess[] {
    return this.workers.filter((w) => w.alive);
  }

  /** Opens a transport client per session and submits `prompt` on each. */
  async submit(sessions: string[], prompt: string, after?: number): Promise<TransportTestClient[]> {
    return Promise.all(
      sessions.map(async (session) => {
        const c = await TransportTestClient.connect(this.url, this.apiKey, after === undefined ? { session } : { session, after });
        await c.waitFor('snapshot', (x) => x.state !== null);
        c.send([{ type: 'submit', prompt }]);
        return c;
      }),
    );
  }

  /** Waits until every requested turn of `sessions` has ended (or `timeoutMs`), then counts. */
  async settle(sessions: string[], expectedText: string, timeoutMs: number): Promise<Ledger & { settledAt: number }> {
    const deadline = Date.now() + timeoutMs;
    let ledger = await this.ledger(sessions, expectedText).catch(() => null);
    while (!ledger || (ledger.lost > 0 && Date.now() < deadline)) {
      await new Promise((r) => setTimeout(r, 200));
      ledger = (await this.ledger(sessions, expectedText).catch(() => null)) ?? ledger;
    }
    return { ...ledger, settledAt: Date.now() };
  }

  async ledger(sessions: string[], expectedText: string): Promise<Ledger> {
    const { rows } = await this.pool.query<{ stream_id: string; type: string; data: Record<string, unknown> }>(
      `SELECT stream_id, type, data FROM events WHERE tenant_id = $1 AND stream_id = ANY($2) ORDER BY stream_id, stream_position`,
      [this.tenantId, sessions.map((s) => `session-${s}`)],
    );
    const ledger: Ledger = { acknowledged: 0, completed: 0, lost: 0, duplicated: 0 };
    const deltas = new Map<string, string[]>();
    const ended = new Map<string, number>();
    for (const e of rows) {
      const turnId = String(e.data.turnId ?? '');
      if (e.type === 'TurnRequested') ledger.acknowledged++;
      if (e.type === 'TextDelta') deltas.set(turnId, [...(deltas.get(turnId) ?? []), String(e.data.text)]);
      if (e.type === 'TurnCompleted') {
        ledger.completed++;
        ended.set(turnId, (ended.get(turnId) ?? 0) + 1);
        if ((deltas.get(turnId) ?? []).join('') !== expectedText || e.data.text !== expectedText) ledger.duplicated++;
      }
    }
    for (const n of ended.values()) if (n > 1) ledger.duplicated++;
    ledger.lost = ledger.acknowledged - ledger.completed;
    return ledger;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.workers, this.ingress].filter(Boolean).map((p) => p.kill('SIGKILL')));
    await this.pool.end();
  }
}

/** The longest silence a client saw between frames in [from, to], and its error frames and close codes. */
export class ClientWatch {
  private last = new Map<TransportTestClient, number>();
  maxGapMs = 0;
  readonly errors: string[] = [];
  private timer: NodeJS.Timeout;

  constructor(private readonly clients: TransportTestClient[]) {
    const seen = new Map<TransportTestClient, number>();
    for (const c of clients) {
      this.last.set(c, Date.now());
      seen.set(c, 0);
    }
    this.timer = setInterval(() => {
      for (const c of this.clients) {
        if (c.frames.length !== seen.get(c)) {
          for (const f of c.frames.slice(seen.get(c))) if (f.type === 'error') this.errors.push(`${f.code ?? ''} ${f.message}`.trim());
          seen.set(c, c.frames.length);
          this.last.set(c, Date.now());
        } else if (c.state?.status === 'running' || c.state === null) {
          this.maxGapMs = Math.max(this.maxGapMs, Date.now() - (this.last.get(c) ?? Date.now()));
        }
        if (c.closeCode !== null && !this.errors.includes(`close ${c.closeCode}`)) this.errors.push(`close ${c.closeCode}`);
      }
    }, 25);
  }

  stop(): { maxGapMs: number; errors: string[] } {
    clearInterval(this.timer);
    return { maxGapMs: this.maxGapMs, errors: [...new Set(this.errors)] };
  }
}
