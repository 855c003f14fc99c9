/**
 * Export memory: a small session (--small events, default 1,000) and a big one (--events, default
 * 100,000), each exported over HTTP (`GET /v1/sessions/ID/export`) and with `hub export`, while the
 * exporting process's RSS is sampled every 20 ms. Flat memory means the big export's peak is about
 * the small one's: the same run measures both, so the two are comparable.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node_modules/.bin/node \
 *     -r ./node_modules/@swc-node/register/index.js tools/bench/export-memory.ts [--events 100000] [--small 1000] [--cli-heap-mb 64]
 *
 * `--cli-heap-mb N` caps `hub export`'s V8 heap (NODE_OPTIONS=--max-old-space-size=N, for that
 * process only): with Node's default heap V8 lets garbage pile up before collecting, so the big
 * export's peak RSS is higher without holding more; under a cap both finish at about the same peak.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sessionStreamId } from '@hub/domain';
import { EventStore, createPool } from '@hub/event-store';
import { HubStack } from '@hub/testing';
import { rssKb } from './lib/cpu';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, small: { type: 'string', default: '1000' }, 'cli-heap-mb': { type: 'string' } },
});
const CLI_HEAP = values['cli-heap-mb'] === undefined ? {} : { NODE_OPTIONS: `--max-old-space-size=${Number(values['cli-heap-mb'])}` };
const EVENTS = Number(values.events);
const SMALL = Number(values.small);
const rssMb = (pid: number) => rssKb(pid) / 1024;

function sampler(pid: number): { stop: () => number } {
  let peak = rssMb(pid);
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process ended
    }
  }, 20);
  return { stop: () => (clearInterval(t), peak) };
}

interface Measured {
  mb: number;
  lines: number;
  idle: number;
  httpPeak: number;
  httpMs: number;
  cliPeak: number;
  cliMs: number;
}

async function seed(stack: HubStack, tenantId: string, session: string, events: number): Promise<void> {
  const pool = createPool(stack.databaseUrl, { max: 2 });
  const store = new EventStore(pool);
  const metadata = { correlationId: 'bench', actor: { type: 'system' as const, id: 'bench' }, protocol: 'internal' as const };
  const text = 'lorem ipsum dolor sit amet '.repeat(4);
  for (let i = 0; i < events; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, events - i) }, (_, j) => ({
      type: 'TextDelta',
      data: { turnId: 't1', messageId: 't1:m', callId: 't1:c0', index: i + j, text },
      metadata,
    }));
    await store.append(tenantId, sessionStreamId(session), batch, { expectedVersion: 'any' });
    if ((i / 1000) % 20 === 0) process.stderr.write(`export-memory: ${session} seeded ${i + batch.length}/${events}\n`);
  }
  await pool.end();
}

/** One session exported over HTTP (ingress RSS sampled) and by `hub export` (its own RSS). */
async function measure(stack: HubStack, tenantId: string, apiKey: string, session: string): Promise<Measured> {
  const ingressPid = stack.ingress.child.pid ?? 0;
  const idle = rssMb(ingressPid);
  const s = sampler(ingressPid);
  const t0 = performance.now();
  const res = await fetch(`${stack.url}/v1/sessions/${session}/export`, { headers: { authorization: `Bearer ${apiKey}` } });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const httpMs = performance.now() - t0;
  const httpPeak = s.stop();

  const cli = spawn(resolve(__dirname, '../../bin/hub'), ['export', session, '--tenant', tenantId], {
    env: { ...process.env, ...stack.baseEnv(), ...CLI_HEAP },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const c = sampler(cli.pid ?? 0);
  const t1 = performance.now();
  cli.stdout.resume();
  const code = await new Promise((r) => cli.once('exit', r));
  if (code !== 0) throw new Error(`hub export exited ${String(code)}`);
  return { mb: bytes / 1e6, lines, idle, httpPeak, httpMs, cliPeak: c.stop(), cliMs: performance.now() - t1 };
}

async function main(): Promise<void> {
  const stack = await HubStack.start({ label: 'exportmem', workers: 1 });
  try {
    const { tenantId, apiKey } = await stack.createTenant('export');
    await seed(stack, tenantId, 'small', SMALL);
    await seed(stack, tenantId, 'big', EVENTS);
    // The small one first, so the big one cannot have warmed anything up for it.
    for (const [session, n] of [
      ['small', SMALL],
      ['big', EVENTS],
    ] as const) {
      const m = await measure(stack, tenantId, apiKey, session);
      console.log(`${session}: ${n} events, ${m.mb.toFixed(1)} MB, ${m.lines} lines`);
      console.log(
        `  HTTP export: ingress RSS idle ${m.idle.toFixed(0)} MB, peak ${m.httpPeak.toFixed(0)} MB (+${(m.httpPeak - m.idle).toFixed(0)} MB), ${(m.httpMs / 1000).toFixed(1)} s`,
      );
      console.log(`  hub export:  process peak RSS ${m.cliPeak.toFixed(0)} MB, ${(m.cliMs / 1000).toFixed(1)} s`);
    }
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
