import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

export type Say = (line: string) => void;

async function pgAnswers(url: string): Promise<boolean> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false; // not answering is the expected outcome we probe for
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined); // a refused connection is what we are probing for
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function aptInstall(pkgs: string[], say: Say): void {
  if (!isRoot())
    throw new Error(
      `${pkgs.join(', ')} not installed and not running as root: install them (apt-get install ${pkgs.join(' ')}) or set DATABASE_URL / REDIS_URL`,
    );
  say(`installing ${pkgs.join(', ')} from Debian's packages...`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2] });
  // eslint-disable-next-line no-restricted-properties -- apt-get needs the caller's environment
  execFileSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: ['ignore', 2, 2], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function pgBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin/pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : null;
}

/** A Postgres of our own under `<stateDir>/pg` (.hub/pg), on a private port, for machines that have none running. */
async function startLocalPostgres(say: Say, stateDir: string): Promise<string> {
  let bin = pgBinDir();
  if (!bin) {
    aptInstall(['postgresql'], say);
    bin = pgBinDir();
    if (!bin) throw new Error('postgresql installed but pg_ctl not found under /usr/lib/postgresql');
  }
  const data = join(stateDir, 'pg');
  const port = 54329;
  const asPostgres = isRoot() ? ['-u', 'postgres'] : [];
  mkdirSync(stateDir, { recursive: true });
  if (isRoot()) spawnSync('chown', ['-R', 'postgres', stateDir]);
  const run = (cmd: string, args: string[]) =>
    execFileSync(isRoot() ? 'runuser' : join(bin as string, cmd), isRoot() ? [...asPostgres, '--', join(bin as string, cmd), ...args] : args, {
      stdio: ['ignore', 2, 2],
    });
  if (!existsSync(join(data, 'PG_VERSION'))) {
    say(`initialising a Postgres cluster in ${data}`);
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  }
  say(`starting Postgres on 127.0.0.1:${port}`);
  run('pg_ctl', ['-D', data, '-l', join(data, 'server.log'), '-o', `-p ${port} -k ${data} -c listen_addresses=127.0.0.1`, '-w', 'start']);
  return `postgresql://postgres@127.0.0.1:${port}/hub`;
}

/** Children we started; `hub up` stops them when it exits. */
export const startedChildren: { kill(): void }[] = [];

async function startLocalRedis(say: Say): Promise<string> {
  if (spawnSync('which', ['redis-server']).status !== 0) aptInstall(['redis-server'], say);
  const port = 63799;
  say(`starting Redis on 127.0.0.1:${port}`);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
    detached: false,
  });
  startedChildren.push(child);
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(url)) return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('redis-server did not answer within 5 s');
}

/** DATABASE_URL when it answers, else the local service, else a Postgres started from local binaries. */
export async function resolvePostgres(configured: string | undefined, say: Say, stateDir: string): Promise<string> {
  if (configured) {
    if (await pgAnswers(configured)) return configured;
    say(`DATABASE_URL does not answer (${new URL(configured).host}); trying the local service`);
  }
  const local = 'postgresql://postgres@127.0.0.1:5432/hub';
  if (await pgAnswers(local)) return local;
  const own = 'postgresql://postgres@127.0.0.1:54329/hub';
  if (await pgAnswers(own)) return own;
  return startLocalPostgres(say, stateDir);
}

export async function resolveRedis(configured: string | undefined, say: Say): Promise<string> {
  if (configured) {
    if (await redisAnswers(configured)) return configured;
    say(`REDIS_URL does not answer (${new URL(configured).host}); trying the local service`);
  }
  const local = 'redis://127.0.0.1:6379';
  if (await redisAnswers(local)) return local;
  return startLocalRedis(say);
}
