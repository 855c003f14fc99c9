/**
 * A Redis server of the benchmark's own (Debian's `redis-server`, no persistence, a free port):
 * the CPU it uses is the benchmarked stack's alone, where the shared server also serves whatever
 * else runs on the machine (tests, other people's benches).
 */
import { spawn } from 'node:child_process';
import { freeListenPort } from '@hub/testing';

export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freeListenPort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within 10 s: ${out.slice(-500)}`)), 10_000);
    const seen = (d: Buffer) => {
      out += d.toString();
      if (!/Ready to accept connections/.test(out)) return;
      clearTimeout(timer);
      ready();
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('error', (e) => (clearTimeout(timer), fail(new Error(`redis-server could not start (${e.message}); is Debian's redis-server installed?`))));
    child.once('exit', (code) => (clearTimeout(timer), fail(new Error(`redis-server exited (${code}): ${out.slice(-500)}`))));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid as number,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
