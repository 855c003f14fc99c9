import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { HubProcess, createTestDatabase, freeListenPort, hubJson, uniqueQueuePrefix, TEST_REDIS_URL, type TestDatabase } from '@hub/testing';

// `bin/hub up`, the first command of the README (issue 30: it had no test). Run as a new user
// would, against the machine's Postgres and Redis (found, not started: DATABASE_URL names an
// empty database of this test's own): it migrates as the owner, runs the apps as the dev login
// `hub_dev` under row-level security, creates the demo tenant and keeps its key, prints where
// everything is, serves a chat, restarts a worker that dies, and stops everything on SIGTERM.

jest.setTimeout(180_000);

let db: TestDatabase;
let stateDir: string;
let queue: { prefix: string; cleanup(): Promise<void> };
let up: HubProcess;
let port: number;

/** The pids of `bin/hub <role>` processes below `root` (the apps `up` spawned; bin/hub execs node on apps/<role>/src/main). */
function appPids(root: number, role: 'ingress' | 'worker'): number[] {
  const parentOf = new Map<number, number>();
  const cmdOf = new Map<number, string>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      parentOf.set(Number(d), Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
      cmdOf.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === root) return true;
    return false;
  };
  return [...cmdOf].filter(([pid, cmd]) => below(pid) && new RegExp(`apps/${role}/src/main\\.`).test(cmd)).map(([pid]) => pid);
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; bin/hub up said:\n${up.stdout.slice(-2000)}\n${up.stderr.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const chat = (apiKey: string, ...args: string[]) => {
  const p = new HubProcess(['chat', '--session', 'demo', ...args], { HUB_URL: `http://127.0.0.1:${port}`, HUB_API_KEY: apiKey });
  p.child.stdin?.end();
  return p;
};

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'hub_up', migrate: false });
  stateDir = mkdtempSync(join(tmpdir(), 'hub-up-state-'));
  queue = uniqueQueuePrefix('hubup');
  port = await freeListenPort();
  up = new HubProcess(['up', '--port', String(port), '--workers', '2'], {
    DATABASE_URL: db.ownerUrl,
    REDIS_URL: TEST_REDIS_URL,
    HUB_QUEUE_PREFIX: queue.prefix,
    HUB_STATE_DIR: stateDir,
    HUB_OFFLINE_DELAY_MS: '1',
    LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  if (up?.alive) await up.kill('SIGKILL');
  await queue?.cleanup();
  await db?.drop();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

it('comes up on the given database and Redis, migrated, with a demo tenant whose key it prints and keeps', async () => {
  await until('"Harness Hub is up"', () => up.stdout.includes('Harness Hub is up'), 120_000);
  const apiKey = /^ {2}API key {5}(\S+)$/m.exec(up.stdout)?.[1] as string;
  const tenantId = /^ {2}tenant {6}(\S+)$/m.exec(up.stdout)?.[1] as string;
  expect(apiKey).toMatch(/^hub_/);
  expect(up.stdout).toContain(`http://127.0.0.1:${port}/console/`);
  expect(JSON.parse(readFileSync(join(stateDir, 'demo.json'), 'utf8'))).toEqual({ tenantId, apiKey });
  expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  expect((await hubJson('GET', `http://127.0.0.1:${port}/v1/sessions`, apiKey)).status).toBe(200);

  // The apps run as the dev login, not as the owner who migrated.
  const owner = new Client({ connectionString: db.ownerUrl });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ usename: string }>(
      "SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
    );
    expect(rows.map((r) => r.usename)).toEqual(['hub_dev']);
    const { rows: migrations } = await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL');
    expect(migrations[0].n).toBe(readdirSync(join(__dirname, '../../../../prisma/migrations')).filter((d) => /^\d+_/.test(d)).length);
  } finally {
    await owner.end();
  }

  // The README's first chat.
  const c = chat(apiKey, 'read notes.txt');
  expect(await c.exited).toBe(0);
  expect(c.stdout.length).toBeGreaterThan(0);
});

it('restarts a worker killed with -9, and turns go on', async () => {
  const apiKey = (JSON.parse(readFileSync(join(stateDir, 'demo.json'), 'utf8')) as { apiKey: string }).apiKey;
  const root = up.child.pid as number;
  const before = await until('two workers', () => appPids(root, 'worker').length === 2 && appPids(root, 'worker'));
  process.kill(before[0], 'SIGKILL');
  await until('the restart line', () => /worker \d exited \(SIGKILL\); restarting it \(1\/5\)/.test(up.stdout + up.stderr));
  const after = await until('two workers again', () => {
    const now = appPids(root, 'worker');
    return now.length === 2 && !now.includes(before[0]) && now;
  });
  expect(after).toContain(before[1]);
  const c = chat(apiKey, '--approve', 'write "hi" to hello.txt');
  expect(await c.exited).toBe(0);
});

it('a second start keeps the demo key; SIGTERM stops every process it started, exit 0', async () => {
  const root = up.child.pid as number;
  const apps = [...appPids(root, 'ingress'), ...appPids(root, 'worker')];
  expect(apps).toHaveLength(3);
  await up.kill('SIGTERM');
  expect(up.child.exitCode).toBe(0);
  await until('its apps gone', () => apps.every((pid) => !readdirSync('/proc').includes(String(pid))), 30_000);

  const saved = readFileSync(join(stateDir, 'demo.json'), 'utf8');
  up = new HubProcess(['up', '--port', String(port), '--workers', '1'], {
    DATABASE_URL: db.ownerUrl,
    REDIS_URL: TEST_REDIS_URL,
    HUB_QUEUE_PREFIX: queue.prefix,
    HUB_STATE_DIR: stateDir,
    LOG_LEVEL: 'warn',
  });
  await until('"Harness Hub is up" again', () => up.stdout.includes('Harness Hub is up'), 120_000);
  expect(up.stdout).not.toContain('creating the demo tenant');
  expect(readFileSync(join(stateDir, 'demo.json'), 'utf8')).toBe(saved);
  await up.kill('SIGTERM');
});
