import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import Redis from 'ioredis';
import { freeListenPort } from '@hub/testing';

const PG_BIN = '/usr/lib/postgresql/15/bin';

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Postgres refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** A Postgres server of the suite's own: a fresh cluster in a temp dir, on a free port. */
export class OwnPostgres {
  private child: ChildProcess | null = null;
  log = '';
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'hub-faults-pg-'));
    const user = runAs();
    if (user.uid !== undefined) chownSync(dir, user.uid, user.gid ?? user.uid);
    execFileSync(`${PG_BIN}/initdb`, ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'], { ...user, stdio: 'ignore' });
    const pg = new OwnPostgres(dir, await freeListenPort());
    await pg.start();
    return pg;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      `${PG_BIN}/postgres`,
      [
        '-D',
        join(this.dir, 'data'),
        '-p',
        String(this.port),
        '-k',
        this.dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=300',
      ],
      { ...runAs(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child.stderr?.on('data', (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000)));
    await until('Postgres to accept connections', async () => {
      const c = new Client({ connectionString: this.url });
      await c.connect();
      await c.end();
      return true;
    });
  }

  /** Fast shutdown (SIGINT): what an operator's restart or a failover does to open sessions. */
  async stop(): Promise<void> {
    if (!this.child) return;
    const c = this.child;
    c.kill('SIGINT');
    await exited(c);
    this.child = null;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface RedisOptions {
  /** `appendonly yes` with `appendfsync always`: an acknowledged write survives kill -9. */
  aof: boolean;
}

/** A Redis server of the suite's own, in a temp dir, on a free port. */
export class OwnRedis {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(opts: RedisOptions): Promise<OwnRedis> {
    const r = new OwnRedis(mkdtempSync(join(tmpdir(), 'hub-faults-redis-')), await freeListenPort());
    await r.start(opts);
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(opts: RedisOptions): Promise<void> {
    const aof = opts.aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', ...aof], { stdio: 'ignore' });
    await until('Redis to answer', async () => {
      const r = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => undefined);
      try {
        await r.connect();
        return (await r.ping()) === 'PONG';
      } finally {
        r.disconnect();
      }
    });
  }

  async kill9(): Promise<void> {
    if (!this.child) return;
    const c = this.child;
    c.kill('SIGKILL');
    await exited(c);
    this.child = null;
  }

  /** Forgets everything on disk too: a Redis without persistence restarts empty. */
  wipe(): void {
    rmSync(this.dir, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', this.dir]);
  }

  async destroy(): Promise<void> {
    await this.kill9();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
