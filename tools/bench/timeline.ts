/**
 * How long the console's turn timeline takes to open on a session of 1,000 turns (issue 26).
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/timeline.ts [--turns 1000] [--runs 3]
 *
 * A hub of its own (ingress, no worker: nothing runs), a tenant, and one session whose log holds
 * `--turns` turns (request, start, a model call, a tool call, a second model call, the end: 9
 * events each), appended through the event store. Then Debian's Chromium opens the session page
 * (signed in) and the time is taken from navigation to the first page of the timeline drawn,
 * and for "Later turns" to the next page drawn. Prints one JSON line per run.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { EventStore, createPool } from '@hub/event-store';
import { HubStack, REPO_ROOT } from '@hub/testing';

const { values } = parseArgs({ options: { turns: { type: 'string', default: '1000' }, runs: { type: 'string', default: '3' } } });
const TURNS = Number(values.turns);
const RUNS = Number(values.runs);

function turnEvents(turnId: string, t: number) {
  const meta = (actor: { type: string; id: string }) => ({ correlationId: randomUUID(), protocol: 'transport', actor });
  const key = { type: 'api_key', id: 'bench', name: 'bench', role: 'operator' };
  const worker = { type: 'worker', id: 'w1' };
  const usage = { promptTokens: 100 + t, completionTokens: 20, totalTokens: 120 + t };
  return [
    { type: 'TurnRequested', data: { turnId, userMessageId: `${turnId}:u`, prompt: `turn ${t}`, context: {}, busyPolicy: 'enqueue' }, metadata: meta(key) },
    { type: 'TurnStarted', data: { turnId }, metadata: meta(worker) },
    {
      type: 'ModelCallStarted',
      data: { turnId, callId: `${turnId}:c0`, step: 0, provider: 'offline', model: 'echo', messageCount: 1, toolNames: ['read_file'] },
      metadata: meta(worker),
    },
    {
      type: 'ModelCallCompleted',
      data: { turnId, callId: `${turnId}:c0`, step: 0, text: '', toolCalls: [], finishReason: 'tool_calls', usage },
      metadata: meta(worker),
    },
    {
      type: 'ToolCallStarted',
      data: {
        turnId,
        messageId: `${turnId}:m`,
        toolCallId: `${turnId}:t0`,
        name: 'read_file',
        input: { path: 'notes.txt' },
        policy: 'allow',
        executor: 'builtin',
      },
      metadata: meta(worker),
    },
    { type: 'ToolCallCompleted', data: { turnId, toolCallId: `${turnId}:t0`, status: 'complete', output: 'ok', durationMs: 1 }, metadata: meta(worker) },
    {
      type: 'ModelCallStarted',
      data: { turnId, callId: `${turnId}:c1`, step: 1, provider: 'offline', model: 'echo', messageCount: 3, toolNames: ['read_file'] },
      metadata: meta(worker),
    },
    {
      type: 'ModelCallCompleted',
      data: { turnId, callId: `${turnId}:c1`, step: 1, text: 'done', toolCalls: [], finishReason: 'stop', usage },
      metadata: meta(worker),
    },
    { type: 'TurnCompleted', data: { turnId, text: 'done', stopReason: 'end_turn', usage }, metadata: meta(worker) },
  ];
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/console/scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const stack = await HubStack.start({ label: 'bench_timeline', workers: 0 });
  // Debian's Chromium, as the console's browser specs drive it.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
  try {
    const tenant = await stack.createTenant('bench');
    const pool = createPool(stack.appDatabaseUrl, { max: 2 });
    const store = new EventStore(pool);
    const events = Array.from({ length: TURNS }, (_, t) => turnEvents(`t${t}`, t)).flat();
    for (let i = 0; i < events.length; i += 500)
      await store.append(tenant.tenantId, 'session-big', events.slice(i, i + 500) as never, { expectedVersion: 'any' });
    await pool.end();
    process.stderr.write(`session-big: ${TURNS} turns, ${events.length} events\n`);
    for (let run = 1; run <= RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${stack.url}/console/`);
      await page.getByLabel('API key').fill(tenant.apiKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      const t0 = Date.now();
      await page.goto(`${stack.url}/console/sessions/big`);
      await page.getByRole('listitem', { name: 'Turn t0' }).locator('li.step').first().waitFor({ timeout: 60_000 });
      const firstPageMs = Date.now() - t0;
      const t1 = Date.now();
      await page.getByRole('button', { name: 'Later turns' }).click();
      await page.getByRole('listitem', { name: 'Turn t10' }).locator('li.step').first().waitFor({ timeout: 60_000 });
      const nextPageMs = Date.now() - t1;
      process.stdout.write(`${JSON.stringify({ run, turns: TURNS, events: events.length, firstPageMs, nextPageMs, pageErrors: errors })}\n`);
      await context.close();
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
