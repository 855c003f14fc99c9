import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freeListenPort } from '@hub/testing';
import { redisDurabilityWarning } from './preflight';

// Issue 30: the boot warning for a Redis that may lose queued turns (no AOF, or an eviction
// policy) was never exercised. Against a Redis server of this test's own, switched between the
// settings with CONFIG SET, the warning names exactly what is wrong, and nothing when nothing is.

jest.setTimeout(30_000);

let server: ChildProcess;
let dir: string;
let url: string;
let admin: Redis;

beforeAll(async () => {
  const port = await freeListenPort();
  dir = mkdtempSync(join(tmpdir(), 'hub-redis-durability-'));
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  url = `redis://127.0.0.1:${port}`;
  admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  admin.on('error', () => undefined); // probing while it starts
  for (
    let i = 0;
    i < 100 &&
    !(await admin.connect().then(
      () => true,
      () => false,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 50));
});

afterAll(async () => {
  admin.disconnect();
  // A throwaway server: no need to wait for its AOF on the way out.
  const exited = server.exitCode === null ? new Promise((r) => server.once('exit', r)) : Promise.resolve();
  server.kill('SIGKILL');
  await exited;
  rmSync(dir, { recursive: true, force: true });
});

it('names AOF when it is off', async () => {
  expect(await redisDurabilityWarning(url)).toBe('Redis may lose queued turns: AOF is off (appendonly no); the reconciler re-schedules them from the log');
});

it('names an eviction policy other than noeviction, and both together', async () => {
  await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
  expect(await redisDurabilityWarning(url)).toBe(
    'Redis may lose queued turns: AOF is off (appendonly no); maxmemory-policy is allkeys-lru, not noeviction; the reconciler re-schedules them from the log',
  );
  await admin.config('SET', 'appendonly', 'yes');
  expect(await redisDurabilityWarning(url)).toBe(
    'Redis may lose queued turns: maxmemory-policy is allkeys-lru, not noeviction; the reconciler re-schedules them from the log',
  );
});

it('says nothing with AOF on and noeviction', async () => {
  await admin.config('SET', 'appendonly', 'yes');
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  expect(await redisDurabilityWarning(url)).toBeNull();
});
