import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devAppUrl } from '@hub/event-store';
import { HUB_BIN } from '../paths';
import { resolvePostgres, resolveRedis, startedChildren, type Say } from '../dev-stack/services';
import { withKeys } from './admin';
import { runMigrate } from './migrate';
import { tenantCreate } from './keys';

export interface UpOptions {
  port: number;
  workers: number;
  databaseUrl?: string;
  /** `HUB_OWNER_DATABASE_URL`: with it, `databaseUrl` is the apps' own login. */
  ownerDatabaseUrl?: string;
  redisUrl?: string;
  /** `HUB_STATE_DIR`: the demo key and the data of services it starts (default `.hub`). */
  stateDir: string;
}

/** The demo tenant's key is kept in `<stateDir>/demo.json` (a dev stack only), re-created if it stopped working. */
async function demoTenant(databaseUrl: string, stateDir: string, say: Say): Promise<{ tenantId: string; apiKey: string }> {
  const file = join(stateDir, 'demo.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { tenantId: string; apiKey: string };
    if (await withKeys(databaseUrl, (keys) => keys.verify(saved.apiKey))) return saved;
  }
  say('creating the demo tenant');
  // As `hub tenant create` does: its admin events on the tenant's admin stream too.
  const created = await tenantCreate(databaseUrl, 'demo');
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ tenantId: created.tenantId, apiKey: created.apiKey }), { mode: 0o600 });
  return created;
}

async function waitForHealth(url: string, children: ChildProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (children.some((c) => c.exitCode !== null)) throw new Error('a hub process exited during start-up (see its log above)');
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`ingress did not become healthy at ${url} within ${timeoutMs / 1000} s`);
}

/** `hub up`: Postgres + Redis (found or started), migrations, one ingress, N workers, in the foreground. */
export async function up(opts: UpOptions, say: Say): Promise<number> {
  // Migrations run as the owner; the apps as a login of their own in hub_app, so row-level
  // security holds in the dev stack as in production (the dev login, unless both are configured).
  const ownerUrl = await resolvePostgres(opts.ownerDatabaseUrl ?? opts.databaseUrl, say, opts.stateDir);
  const databaseUrl = opts.ownerDatabaseUrl && opts.databaseUrl ? opts.databaseUrl : devAppUrl(ownerUrl);
  const redisUrl = await resolveRedis(opts.redisUrl, say);
  say(`postgres: ${new URL(ownerUrl).host}  redis: ${new URL(redisUrl).host}`);
  await runMigrate({ owner: ownerUrl, app: databaseUrl }, say);
  const demo = await demoTenant(databaseUrl, opts.stateDir, say);
  // The children parse this environment with their own config schemas; the owner's URL is not theirs.
  // eslint-disable-next-line no-restricted-properties
  const { HUB_OWNER_DATABASE_URL: _owner, ...inherited } = process.env;
  const env = { ...inherited, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PORT: String(opts.port) };
  const start = (role: 'ingress' | 'worker') => spawn(HUB_BIN, [role], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const children = [start('ingress'), ...Array.from({ length: opts.workers }, () => start('worker'))];
  let stopping = false;
  const stopAll = () => {
    stopping = true;
    children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGTERM'));
    startedChildren.forEach((c) => c.kill());
  };
  try {
    await waitForHealth(`http://127.0.0.1:${opts.port}/health`, children, 60_000);
  } catch (e) {
    stopAll();
    throw e;
  }
  printSummary(opts.port, demo);
  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      stopAll();
      resolve(code);
    };
    process.once('SIGINT', () => finish(0));
    process.once('SIGTERM', () => finish(0));
    // Ingress is the stack's face: when it goes, so does the stack. A worker that dies is
    // restarted, as a supervisor would (its turns continue on the others meanwhile).
    children[0].once('exit', (code, signal) => {
      if (stopping) return;
      say(`ingress exited (${signal ?? code}); stopping the stack`);
      finish(1);
    });
    const supervise = (i: number) =>
      children[i].once('exit', (code, signal) => {
        if (stopping) return;
        const restarts = (restarted.get(i) ?? 0) + 1;
        restarted.set(i, restarts);
        if (restarts > MAX_WORKER_RESTARTS) {
          say(`worker ${i} exited (${signal ?? code}) ${restarts} times; stopping the stack`);
          return finish(1);
        }
        say(`worker ${i} exited (${signal ?? code}); restarting it (${restarts}/${MAX_WORKER_RESTARTS})`);
        children[i] = start('worker');
        supervise(i);
      });
    const restarted = new Map<number, number>();
    for (let i = 1; i < children.length; i++) supervise(i);
  });
}

/** A worker that keeps dying is a bug to see, not to hide: the stack stops after this many restarts. */
const MAX_WORKER_RESTARTS = 5;

function printSummary(port: number, demo: { tenantId: string; apiKey: string }): void {
  const http = `http://127.0.0.1:${port}`;
  process.stdout.write(
    [
      '',
      'Harness Hub is up (offline model).',
      `  HTTP        ${http}   (GET /health)`,
      `  Console     ${http}/console/   (sign in with the API key below)`,
      `  WebSocket   ws://127.0.0.1:${port}/v1/transport?session=demo`,
      `  API docs    ${http}/docs   (OpenAPI: /openapi.json; metrics: /metrics)`,
      `  tenant      ${demo.tenantId}`,
      `  API key     ${demo.apiKey}`,
      '',
      'Try it:',
      `  HUB_URL=${http} HUB_API_KEY=${demo.apiKey} bin/hub chat --session demo "read notes.txt"`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}
