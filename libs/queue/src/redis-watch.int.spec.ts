import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freeListenPort } from '@hub/testing';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DependencyState, createLogger } from '@hub/telemetry';
import Redis from 'ioredis';
import { Queue } from 'bullmq';
import { watchRedis } from './redis-watch';

// Issue 17: a Redis outage printed a stack per retry of every client ("[ioredis] Unhandled error
// event", 91 in 4 s). Against a Redis of this test's own, stopped and started again: one line down,
// one line up, and nothing unhandled.

jest.setTimeout(60_000);

let port = 0;
let dir = '';
let redis: ChildProcess | undefined;

async function startRedis(): Promise<void> {
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined); // probing for start-up
  for (let i = 0; i < 100; i++) {
    if (
      await probe.connect().then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  probe.disconnect();
}

async function stopRedis(): Promise<void> {
  const r = redis;
  if (!r || r.exitCode !== null) return;
  await new Promise((res) => (r.once('exit', res), r.kill('SIGKILL')));
}

beforeAll(async () => {
  port = await freeListenPort();
  dir = mkdtempSync(join(tmpdir(), 'hub-redis-watch-'));
  await startRedis();
});
afterAll(async () => {
  await stopRedis();
  rmSync(dir, { recursive: true, force: true });
});

it('an outage is one line down and one line up, across every client, with nothing unhandled', async () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write: (c: Buffer, _e, done) => (
      c
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => lines.push(JSON.parse(l))),
      done()
    ),
  });
  const state = new DependencyState('redis', createLogger('dependency', 'info', { destination }));
  const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const url = `redis://127.0.0.1:${port}`;
  const clients = [
    watchRedis(new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 }), state),
    watchRedis(new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 }), state),
  ];
  const queue = watchRedis(new Queue('watch', { connection: { url, maxRetriesPerRequest: null, retryStrategy: () => 100 } }), state);
  try {
    await Promise.all(clients.map((c) => c.ping()));
    await queue.waitUntilReady();
    await stopRedis();
    await new Promise((r) => setTimeout(r, 2000)); // ~20 retries per client
    expect(state.isDown).toBe(true);
    await startRedis();
    const deadline = Date.now() + 10_000;
    while (state.isDown && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(lines.map((l) => l['state'])).toEqual(['down', 'up']);
    expect(printed.mock.calls.filter((c) => String(c[0]).includes('Unhandled error event'))).toEqual([]);
  } finally {
    printed.mockRestore();
    await queue.close().catch(() => undefined);
    clients.forEach((c) => c.disconnect());
  }
});
