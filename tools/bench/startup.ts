/**
 * Start time and memory of ingress and worker, from the TypeScript sources (`bin/hub`, compiled
 * at start by @swc-node/register) and from the production build (`HUB_RUN_FROM=dist`), in one run.
 *
 *   npm run build && SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node \
 *     -r ./node_modules/@swc-node/register/index.js tools/bench/startup.ts [--runs 5]
 *
 * Ingress: from spawn to the first 200 of GET /health, and its RSS then. Worker: from spawn to its
 * "worker started" line, and its RSS then. Each figure is the median of --runs starts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '@hub/testing';
import { rssKb } from './lib/cpu';

const ROOT = resolve(__dirname, '../..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);

interface Start {
  ms: number;
  rssMb: number;
}

function rssMb(pid: number): number {
  return rssKb(pid) / 1024;
}

async function startOnce(role: 'ingress' | 'worker', from: 'src' | 'dist', databaseUrl: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(resolve(ROOT, 'bin/hub'), [role], {
    env: {
      ...process.env,
      HUB_RUN_FROM: from,
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      HUB_QUEUE_PREFIX: `bench-startup-${process.pid}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const ready = await new Promise<string>((res, rej) => {
      let buf = '';
      const onData = (chunk: Buffer) => {
        buf += chunk.toString();
        for (const line of buf.split('\n')) {
          if (role === 'ingress' && line.includes('"ingress listening"')) return res(String(JSON.parse(line).url));
          if (role === 'worker' && line.includes('"worker started"')) return res('');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => rej(new Error(`${role} (${from}) exited ${code}: ${buf.slice(-500)}`)));
    });
    if (role === 'ingress') {
      for (;;) {
        const res = await fetch(`${ready.replace('[::1]', '127.0.0.1')}/health`).catch(() => undefined);
        if (res?.status === 200) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const ms = performance.now() - started;
    return { ms, rssMb: rssMb(child.pid ?? 0) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  if (!existsSync(resolve(ROOT, 'dist/BUILD.json'))) throw new Error('no production build: run `npm run build` first');
  const db = await createTestDatabase({ prefix: 'bench_startup' });
  try {
    const rows: string[] = [];
    for (const role of ['ingress', 'worker'] as const) {
      const result: Record<string, Start[]> = { src: [], dist: [] };
      for (let i = 0; i < RUNS; i++) {
        // Alternate, so both see the same machine load.
        for (const from of ['src', 'dist'] as const) {
          result[from].push(await startOnce(role, from, db.url));
          process.stderr.write(`startup: ${role} ${from} run ${i + 1}/${RUNS}\n`);
        }
      }
      for (const from of ['src', 'dist'] as const) {
        const ms = median(result[from].map((s) => s.ms));
        const mb = median(result[from].map((s) => s.rssMb));
        rows.push(`${role.padEnd(8)} ${from.padEnd(5)} ${ms.toFixed(0).padStart(6)} ms ${mb.toFixed(1).padStart(7)} MB`);
      }
    }
    console.log(`role     from   ready (median of ${RUNS})  RSS`);
    for (const row of rows) console.log(row);
  } finally {
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
