/**
 * Starting and stopping the sides' servers, for every workload of the peer benchmark (run.ts,
 * streaming.ts): a peer's `node server.mjs` in its own folder (installed on first use), the
 * scratch database a peer keeps its state in, and the hub's stack on a Redis server of its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HubStack, connectToServer, testServerUrl } from '@hub/testing';
import { startPrivateRedis, type PrivateRedis } from '../lib/private-redis';

const PEERS_DIR = __dirname;
const REPO_ROOT = resolve(PEERS_DIR, '../../..');
const NODE = existsSync(join(REPO_ROOT, 'node_modules/.bin/node')) ? join(REPO_ROOT, 'node_modules/.bin/node') : process.execPath;

/** Progress on stderr. */
export const log = (msg: string) => process.stderr.write(`peers: ${msg}\n`);

/** `npm install` in a peer's folder, unless its install is newer than its package.json. */
function ensureInstalled(folder: string): void {
  const dir = join(PEERS_DIR, folder);
  const marker = join(dir, 'node_modules/.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(dir, 'package.json')).mtimeMs) return;
  log(`installing ${folder}/ (npm install --prefix ${dir})`);
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir], { stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error(`npm install in ${folder}/ failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''})`);
}

export interface PeerServer {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `node server.mjs` in a peer's folder and waits for its `{"ready":true,"url":…}` line. */
async function startPeerServer(folder: string, env: Record<string, string>): Promise<PeerServer> {
  const child = spawn(NODE, ['server.mjs'], {
    cwd: join(PEERS_DIR, folder),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${folder} server did not print its ready line within 60 s; stderr:\n${err.slice(-3000)}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      for (const line of out.split('\n')) {
        if (!line.startsWith('{"ready"')) continue;
        clearTimeout(timer);
        resolveUrl((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${folder} server exited (${code ?? signal}) before it was ready; stderr:\n${err.slice(-3000)}\nstdout:\n${out.slice(-2000)}`));
    });
  });
  return {
    child,
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** `fetch` that throws on a status other than 2xx; aborted after `timeoutMs` unless `init.signal` is given. */
export async function fetchOk(url: string, init: RequestInit, timeoutMs = 60_000): Promise<Response> {
  const res = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
  return res;
}

/** LangGraph's agent server (langgraph/server.mjs) with `langgraph dev`'s defaults but the log level (`warn`). */
export async function startLangGraphServer(env: Record<string, string> = {}): Promise<PeerServer> {
  ensureInstalled('langgraph');
  return startPeerServer('langgraph', { LOG_LEVEL: 'warn', ...env });
}

/** The DBOS peer's server on a fresh system database `peers_dbos_<random>` (migrated by DBOS at launch), dropped with the server. */
export async function startDbosServer(env: Record<string, string> = {}): Promise<{ server: PeerServer; database: string; stop(): Promise<void> }> {
  ensureInstalled('dbos');
  const name = `peers_dbos_${randomBytes(6).toString('hex')}`;
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  const drop = async () => {
    const c = await connectToServer();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
  };
  const c = await connectToServer();
  await c.query(`CREATE DATABASE "${name}"`).finally(() => c.end());
  let server: PeerServer;
  try {
    server = await startPeerServer('dbos', { DBOS_SYSTEM_DATABASE_URL: url.toString(), DBOS_LOG_LEVEL: 'warn', ...env });
  } catch (e) {
    await drop();
    throw e;
  }
  return {
    server,
    database: name,
    async stop() {
      await server.stop();
      await drop();
    },
  };
}

export interface RunningHub {
  stack: HubStack;
  redis: PrivateRedis;
  apiKey: string;
  stop(): Promise<void>;
}

/**
 * A `HubStack` (one ingress, one worker) on a Redis server of its own (its CPU is the hub's
 * alone; the shared one serves the whole machine), with one tenant.
 */
export async function startHub(label: string, workerEnv: Record<string, string>): Promise<RunningHub> {
  const redis = await startPrivateRedis();
  let stack: HubStack;
  try {
    stack = await HubStack.start({ label, workers: 1, workerEnv, redisUrl: redis.url });
  } catch (e) {
    await redis.stop();
    throw e;
  }
  const stop = async () => {
    await stack.stop();
    await redis.stop();
  };
  try {
    const { apiKey } = await stack.createTenant(label);
    return { stack, redis, apiKey, stop };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
