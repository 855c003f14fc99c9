import { Client } from 'pg';

/** First key of the two-key advisory locks of projections (the second is `hashtext(name)`). */
export const PROJECTION_LOCK_CLASS = 2012;

/**
 * SQL: whether some session holds the runner's lock of the projection named by `nameSql`, in this
 * database (advisory locks are per database; other databases on the server run their own).
 * `classSql` is where {@link PROJECTION_LOCK_CLASS} goes, usually a parameter.
 */
export function runnerHoldsLockSql(nameSql: string, classSql: string): string {
  return `EXISTS (SELECT 1 FROM pg_locks l
                   WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                     AND l.classid = ${classSql} AND l.objid = hashtext(${nameSql})::oid AND l.objsubid = 2)`;
}

export interface LeadershipOptions {
  connectionString: string;
  names: readonly string[];
  /** How often a standby tries to take a projection over. */
  pollMs: number;
  onGain: (name: string) => void;
  onLoss: (name: string) => void;
  log: (message: string, error?: unknown) => void;
}

/**
 * One active runner per projection, any number of standbys: the active one holds a session-level
 * advisory lock on a connection of its own. When its process dies the connection closes, the
 * lock goes with it, and a standby's next try takes it. If our lock connection drops, we stop
 * at once (the checkpoint's compare-and-set guards a batch already in flight).
 */
export class Leadership {
  private client: Client | undefined;
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private trying = false;

  constructor(private readonly o: LeadershipOptions) {}

  start(): void {
    void this.tick();
  }

  isHeld(name: string): boolean {
    return this.held.has(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.dropAll();
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), this.o.pollMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.trying || this.closed) return;
    this.trying = true;
    try {
      const client = this.client ?? (await this.connect());
      for (const name of this.o.names) {
        if (this.held.has(name) || this.closed) continue;
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [PROJECTION_LOCK_CLASS, name]);
        if (rows[0].ok && this.client === client) {
          this.held.add(name);
          this.o.onGain(name);
        }
      }
    } catch (e) {
      this.o.log('projections: leadership check failed', e);
      this.lost();
    } finally {
      this.trying = false;
      this.schedule();
    }
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.o.connectionString, application_name: 'hub-projections-lock' });
    client.on('error', (e) => {
      this.o.log('projections: lock connection failed', e);
      if (this.client === client) this.lost();
    });
    client.on('end', () => {
      if (this.client === client) this.lost();
    });
    await client.connect();
    if (this.closed) {
      await client.end();
      throw new Error('closed');
    }
    this.client = client;
    return client;
  }

  private lost(): void {
    const c = this.client;
    this.client = undefined;
    this.dropAll();
    c?.end().catch(() => undefined);
  }

  private dropAll(): void {
    for (const name of [...this.held]) {
      this.held.delete(name);
      this.o.onLoss(name);
    }
  }
}
