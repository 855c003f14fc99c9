/**
 * Density (issue 31): what an open, idle transport socket costs ingress, and how fast they open.
 *
 *   ulimit -n 40000   # each socket is a descriptor in this process and one in ingress
 *   SWC_NODE_PROJECT=tsconfig.base.json flock /tmp/hub-bench.lock \
 *     node -r @swc-node/register tools/bench/idle-sockets.ts [--sockets 10000] [--one-session] \
 *       [--window 256] [--settle 5] [--log-level info] [--heap-snapshot] [--cpu-profile DIR]
 *
 * Starts a real stack (fresh database, one ingress, no worker: nothing runs), then opens
 * `--sockets` transport sockets, each to a session of its own (`--one-session`: all to one),
 * with at most `--window` upgrades in flight; a socket counts as open at its `state` snapshot.
 * Prints the open rate and ingress RSS (VmRSS) before and after, each read once the process has
 * been quiet for `--settle` seconds, the growth per socket, and the CPU ingress and this process
 * used while opening (which of them bounds the rate). `--heap-snapshot` makes ingress
 * write a heap snapshot (in its working directory) with all sockets open, to see where it goes;
 * `--cpu-profile DIR` writes its CPU profile there when it stops (read it with cpuprofile-top.ts).
 * Ingress logs at `--log-level` (default `info`, as deployed: a line per socket opened).
 *
 * Targets: 10,000 sockets at 20 KB or less each, opened at 2,000/s or more.
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { HubStack } from '@hub/testing';
import { cpuMs, rssKb } from './lib/cpu';

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '10000' },
    'one-session': { type: 'boolean', default: false },
    window: { type: 'string', default: '256' },
    settle: { type: 'string', default: '5' },
    'heap-snapshot': { type: 'boolean', default: false },
    'cpu-profile': { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
  },
});
const SOCKETS = Number(values.sockets);
const WINDOW = Number(values.window);
const SETTLE_MS = Number(values.settle) * 1000;

/** Resident memory of a process, in bytes. */
const rss = (pid: number): number => rssKb(pid) * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens one socket and resolves at its snapshot; the socket stays open. */
function open(url: string, apiKey: string, session: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url}/v1/transport?session=${encodeURIComponent(session)}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
    perMessageDeflate: false,
  });
  return new Promise((resolve, reject) => {
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
    ws.once('close', (code) => reject(new Error(`closed ${code} before its snapshot`)));
  });
}

/** Opens `n` sockets with at most `window` in flight; returns them and the seconds it took. */
async function openAll(url: string, apiKey: string, n: number): Promise<{ sockets: WebSocket[]; seconds: number; failed: number }> {
  const sockets: WebSocket[] = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < n) {
      const i = next++;
      try {
        sockets.push(await open(url, apiKey, values['one-session'] ? 'idle' : `idle-${i}`));
      } catch (e) {
        if (failed++ < 3) process.stderr.write(`socket ${i}: ${(e as Error).message}\n`);
      }
      if ((i + 1) % 2000 === 0) process.stderr.write(`  ${i + 1} opened\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WINDOW, n) }, lane));
  return { sockets, seconds: (performance.now() - t0) / 1000, failed };
}

async function main(): Promise<void> {
  const ingressEnv: Record<string, string> = { HUB_WS_MAX_SOCKETS: String(SOCKETS + 100), LOG_LEVEL: values['log-level'] };
  const nodeOptions = [
    values['heap-snapshot'] ? '--heapsnapshot-signal=SIGUSR2' : '',
    values['cpu-profile'] ? `--cpu-prof --cpu-prof-dir=${values['cpu-profile']}` : '',
  ];
  if (nodeOptions.some(Boolean)) ingressEnv.NODE_OPTIONS = nodeOptions.filter(Boolean).join(' ');
  const stack = await HubStack.start({ label: 'idle_sockets', workers: 0, ingressEnv });
  try {
    const tenant = await stack.createTenant('idle');
    const url = stack.url.replace(/^http/, 'ws');
    const pid = stack.ingress.child.pid ?? 0;
    // Warm up what every socket shares (the key's verification, code paths, pools) before "before".
    const warm = await openAll(url, tenant.apiKey, 50);
    warm.sockets.forEach((ws) => ws.terminate());
    await sleep(SETTLE_MS);
    const before = rss(pid);
    const cpu0 = { ingress: cpuMs(pid) ?? 0, bench: process.cpuUsage() };
    const opened = await openAll(url, tenant.apiKey, SOCKETS);
    const benchCpu = process.cpuUsage(cpu0.bench);
    const cpu = { ingress: ((cpuMs(pid) ?? 0) - cpu0.ingress) / 1000, bench: (benchCpu.user + benchCpu.system) / 1e6 };
    await sleep(SETTLE_MS);
    const after = rss(pid);
    if (values['heap-snapshot']) {
      process.kill(pid, 'SIGUSR2');
      await sleep(SETTLE_MS * 4);
    }
    const n = opened.sockets.length;
    const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
    process.stdout.write(
      [
        `idle transport sockets (${values['one-session'] ? 'one session' : 'a session each'}), window ${WINDOW}`,
        `  opened          ${n} of ${SOCKETS} (${opened.failed} failed) in ${opened.seconds.toFixed(1)} s: ${(n / opened.seconds).toFixed(0)} /s`,
        `  ingress RSS     ${mb(before)} MB before, ${mb(after)} MB after`,
        `  per socket      ${((after - before) / Math.max(1, n) / 1024).toFixed(1)} KB`,
        `  CPU opening     ingress ${cpu.ingress.toFixed(1)} s, this client ${cpu.bench.toFixed(1)} s (of ${opened.seconds.toFixed(1)} s)`,
        '',
      ].join('\n'),
    );
    opened.sockets.forEach((ws) => ws.terminate());
    // A CPU profile is written when the process exits by itself: a SIGTERM, as a deploy stops it.
    if (values['cpu-profile']) await stack.ingress.kill('SIGTERM');
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
