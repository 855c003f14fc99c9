import { Queue } from 'bullmq';
import { Client } from 'pg';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { HubProcess, TransportTestClient } from '@hub/testing';
import { ClientWatch, FaultHub, FAULT_WORKER_ENV, type Ledger } from './fault-hub';
import { OwnPostgres, OwnRedis } from './own-services';

// Each fault against a running hub (one ingress, two workers, `bin/hub` as in production) on
// Postgres and Redis processes of the suite's own, so it may kill them. For every fault: the
// turns clients got acknowledged (TurnRequested in the log), the turns completed, and whether
// any text was written twice; and what a client saw (longest silence, error frames).

jest.setTimeout(150_000);

const PROMPT = 'long answer 120';
/** Long enough that turns still wait in Redis when it dies (six worker slots, eight sessions). */
const LONG_PROMPT = 'long answer 300';
const LOCK_MS = Number(FAULT_WORKER_ENV.HUB_WORKER_LOCK_MS);
const RECONCILE_MS = Number(FAULT_WORKER_ENV.HUB_RECONCILE_INTERVAL_MS);

let pg: OwnPostgres;
let redis: OwnRedis;
let hub: FaultHub;
let expected = '';
let expectedLong = '';
let crashed = 0;
const report: Record<string, Ledger & { stallMs: number; errors: string[]; settleMs: number }> = {};

beforeAll(async () => {
  [pg, redis] = await Promise.all([OwnPostgres.start(), OwnRedis.start({ aof: true })]);
  hub = await FaultHub.start(pg, redis, 2);
  const [ref] = await hub.submit(['reference'], PROMPT);
  const [refLong] = await hub.submit(['reference-long'], LONG_PROMPT);
  await Promise.all([ref.waitForIdle(60_000), refLong.waitForIdle(60_000)]);
  expected = ref.lastAssistant()?.content ?? '';
  expectedLong = refLong.lastAssistant()?.content ?? '';
  expect(expected.split(' ')).toHaveLength(120);
  expect(expectedLong.split(' ')).toHaveLength(300);
  await Promise.all([ref.close(), refLong.close()]);
});

// The suite plays the supervisor: a worker a fault crashed is counted and replaced, so one
// fault's crash does not fail the faults after it.
beforeEach(async () => {
  for (const w of hub.workers.filter((x) => !x.alive)) {
    if (exitedOnItsOwn(w)) crashed++;
    hub.workers.splice(hub.workers.indexOf(w), 1);
  }
  while (hub.live().length < 2) await hub.addWorker();
});

afterAll(async () => {
  process.stdout.write(`\nfault suite results (workers crashed and replaced: ${crashed})\n${JSON.stringify(report, null, 1)}\n`);
  await hub?.stop();
  await Promise.all([pg?.destroy(), redis?.destroy()]);
});

/** A process that exited by itself with a failure (not killed by a fault, not a clean SIGTERM exit). */
const exitedOnItsOwn = (p: FaultHub['ingress']) => p.child.signalCode === null && p.child.exitCode !== null && p.child.exitCode !== 0;
const sessions = (fault: string, n: number) => Array.from({ length: n }, (_, i) => `${fault}-${i}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const streaming = (clients: TransportTestClient[]) =>
  Promise.all(clients.map((c) => c.waitFor('streaming', (x) => (x.lastAssistant()?.content.length ?? 0) > 60, 60_000)));

/** Runs `fault` while the clients' turns stream, waits for the log to settle, and records it. */
async function underFault(
  name: string,
  n: number,
  fault: (clients: TransportTestClient[]) => Promise<void>,
  settleMs = 60_000,
  prompt = PROMPT,
): Promise<Ledger & { settleMs: number; stallMs: number }> {
  const names = sessions(name, n);
  const clients = await hub.submit(names, prompt);
  const watch = new ClientWatch(clients);
  await streaming(clients.slice(0, 1));
  const t0 = Date.now();
  await fault(clients);
  const ledger = await hub.settle(names, prompt === PROMPT ? expected : expectedLong, settleMs);
  const seen = watch.stop();
  await Promise.all(clients.map((c) => c.close()));
  if (ledger.lost > 0 || ledger.duplicated > 0) dumpProcesses(name);
  const result = { ...ledger, stallMs: seen.maxGapMs, errors: seen.errors, settleMs: ledger.settledAt - t0 };
  report[name] = result;
  return result;
}

/** On a failed fault, what the hub's processes said (their stderr is the only trace of a crash). */
function dumpProcesses(name: string): void {
  for (const p of [hub.ingress, ...hub.workers]) {
    process.stdout.write(`\n--- ${name}: ${p.child.spawnargs.slice(-1)[0]} pid ${p.child.pid} alive=${p.alive}\n${p.stderr.slice(-3000)}\n`);
  }
}

function expectNothingLost(l: Ledger, acknowledged: number): void {
  expect(l).toEqual(expect.objectContaining({ acknowledged, completed: acknowledged, lost: 0, duplicated: 0 }));
}

it('worker kill -9 mid-turn: BullMQ hands the turn to the other worker, which goes on from the log', async () => {
  const l = await underFault('worker-kill9', 6, async () => {
    await hub.live()[0].kill('SIGKILL');
    await hub.addWorker();
  });
  expectNothingLost(l, 6);
});

it('worker SIGTERM mid-turn: the worker finishes or hands over its turns and exits', async () => {
  const l = await underFault('worker-sigterm', 6, async () => {
    const victim = hub.live()[0];
    await victim.kill('SIGTERM');
    expect(await victim.exited).toBe(0);
    await hub.addWorker();
  });
  expectNothingLost(l, 6);
});

it('Redis kill -9 with AOF (appendfsync always): the queues come back as they were', async () => {
  const l = await underFault('redis-aof', 6, async () => {
    await redis.kill9();
    await sleep(1000);
    await redis.start({ aof: true });
  });
  expectNothingLost(l, 6);
});

/**
 * A turn waiting on an approval whose deadline (`afterSeconds`) is a delayed job in Redis and
 * escalates to the tenant's admins, whose own deadline (`escalatedAfterSeconds`) denies: the
 * tenant's policy asks for every write_file, and the offline model writes one.
 */
async function pendingApproval(session: string, afterSeconds: number, escalatedAfterSeconds: number): Promise<{ approvalId: string; deadlineAt: string }> {
  const escalate = { approvers: { roles: ['admin'] }, afterSeconds: escalatedAfterSeconds };
  const policy = {
    rules: [{ id: 'writes-expire', match: { tool: 'write_file' }, outcome: 'ask', approval: { deadline: { afterSeconds, onExpiry: { escalate } } } }],
    default: { outcome: 'builtin' },
  };
  const put = await fetch(`${hub.url}/v1/admin/policy`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(policy),
  });
  expect(put.status).toBe(200);
  const [c] = await hub.submit([session], 'write "x" to notes.txt');
  await c.waitFor('a pending approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending', 30_000);
  await c.close();
  return (await approvalEvents(session, 'ApprovalRequested'))[0];
}

async function approvalEvents(
  session: string,
  type: string,
): Promise<Array<{ approvalId: string; deadlineAt: string; decision?: string; by?: { id: string }; escalatedFrom?: string }>> {
  const { rows } = await hub.pool.query<{ data: { approvalId: string; deadlineAt: string } }>(
    'SELECT data FROM events WHERE tenant_id = $1 AND stream_id = $2 AND type = $3 ORDER BY stream_position',
    [hub.tenantId, `session-${session}`, type],
  );
  return rows.map((r) => r.data);
}

it('Redis kill -9 without AOF: every acknowledged turn is recovered by the reconciler within its bound', async () => {
  let waitingAtKill = 0;
  let deadlinesAtKill = 0;
  await redis.kill9();
  redis.wipe();
  await redis.start({ aof: false });
  await sleep(1500); // the hub's connections find the new server
  // An approval whose escalating deadline passes after the kill (ADR 0050): its job dies with Redis's data.
  const approval = await pendingApproval('deadline-noaof', 12, 3);
  // Two turns per session: the second waits behind the first, as later submits did in the report.
  const l = await underFault(
    'redis-noaof',
    8,
    async (clients) => {
      clients.forEach((c) => c.send([{ type: 'submit', prompt: LONG_PROMPT }]));
      // Acknowledged = recorded: both turns of every session are in the log (the second queued
      // behind the first, in the log only), while the first turns still run or wait in Redis.
      for (let i = 0; i < 300; i++) {
        const { rows } = await hub.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'TurnRequested' AND stream_id LIKE 'session-redis-noaof-%'`,
        );
        if (rows[0].n === 16) break;
        await sleep(20);
      }
      // What Redis held but no worker had started: what the kill loses and the reconciler must find.
      const turns = new Queue('turns', { connection: { url: redis.url }, prefix: hub.env().HUB_QUEUE_PREFIX });
      waitingAtKill = await turns.getJobCountByTypes('wait', 'prioritized').finally(() => turns.close());
      const commands = new Queue('commands', { connection: { url: redis.url }, prefix: hub.env().HUB_QUEUE_PREFIX });
      deadlinesAtKill = await commands.getJobCountByTypes('delayed').finally(() => commands.close());
      expect(await approvalEvents('deadline-noaof', 'ApprovalResolved')).toEqual([]); // still pending when Redis dies
      await redis.kill9();
      redis.wipe();
      await redis.start({ aof: false });
    },
    90_000,
    LONG_PROMPT,
  );
  expectNothingLost(l, 16);
  const recovered = hub.workers.flatMap((w) => w.stderr.split('\n').filter((x) => x.includes('"turn recovered"')));
  // 8 first turns on 2 workers of 3 slots each: 2 were waiting when Redis died, and are gone
  // from it. Only the reconciler can have run them.
  expect(waitingAtKill).toBeGreaterThan(0);
  expect(recovered.length).toBeGreaterThan(0);
  // Bound: a lost turn is found once its stream is quiet for the lock time, at the next scan;
  // then it and the turn queued behind it run (two turns of PROMPT, about 2 s each).
  expect(l.settleMs).toBeLessThan(LOCK_MS + RECONCILE_MS + 2 * 6000 + 8000);
  // The approval's deadline came back from Postgres and escalated it at (or after) its time; the
  // escalation's own deadline then denied the call.
  expect(deadlinesAtKill).toBe(1);
  let resolved = await approvalEvents('deadline-noaof', 'ApprovalResolved');
  for (let i = 0; i < 150 && resolved.length === 0; i++) {
    await sleep(200);
    resolved = await approvalEvents('deadline-noaof', 'ApprovalResolved');
  }
  const escalation = `${approval.approvalId}.escalated`;
  expect(await approvalEvents('deadline-noaof', 'ApprovalRequested')).toEqual([
    expect.objectContaining({ approvalId: approval.approvalId }),
    expect.objectContaining({ approvalId: escalation, escalatedFrom: approval.approvalId }),
  ]);
  expect(resolved).toEqual([expect.objectContaining({ approvalId: escalation, decision: 'denied', by: expect.objectContaining({ id: 'approval-deadline' }) })]);
  const rescheduled = hub.workers.flatMap((w) => w.stderr.split('\n').filter((x) => x.includes('"approval deadline rescheduled"')));
  expect(rescheduled.some((x) => x.includes(approval.approvalId))).toBe(true);
});

it('Postgres stopped mid-turn for 5 s and started again: appends retry, streams resume', async () => {
  const l = await underFault('postgres-stop', 6, async () => {
    await pg.stop();
    await sleep(5000);
    await pg.start();
  });
  expectNothingLost(l, 6);
  // Issue 11: no process may be crashed by a dependency outage (a supervisor would hide it).
  expect(hub.workers.filter(exitedOnItsOwn).map((w) => w.stderr.slice(-600))).toEqual([]);
  expect(hub.ingress.alive).toBe(true);
});

it('ingress kill -9: clients resume by cursor on a new ingress with no gap and no duplicate', async () => {
  const names = sessions('ingress-kill9', 4);
  const clients = await hub.submit(names, PROMPT);
  await streaming(clients);
  await hub.ingress.kill('SIGKILL');
  const t0 = Date.now();
  await hub.startIngress();
  const resumed = await Promise.all(clients.map((c, i) => TransportTestClient.resume(hub.url, hub.apiKey, names[i], c)));
  const watch = new ClientWatch(resumed);
  await Promise.all(resumed.map((c) => c.waitForIdle(60_000)));
  const seen = watch.stop();
  for (const [i, c] of resumed.entries()) {
    expect(c.lastAssistant()?.content).toBe(expected);
    const cursors = c.frames.filter((f) => f.type !== 'error').map((f) => (f as { cursor: number }).cursor);
    expect(cursors[0]).toBeGreaterThan(clients[i].cursor);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
    expect(new Set(cursors).size).toBe(cursors.length);
  }
  const ledger = await hub.ledger(names, expected);
  expectNothingLost(ledger, 4);
  // The stall a client sees: from the kill to its first frame on the new ingress.
  const firstFrame = Math.min(...resumed.map((c) => c.firstFrameAt ?? Infinity));
  report['ingress-kill9'] = { ...ledger, stallMs: firstFrame - t0, errors: seen.errors, settleMs: Date.now() - t0 };
  await Promise.all([...clients, ...resumed].map((c) => c.close()));
});

it('a long-open writing transaction during appends delays delivery, loses nothing', async () => {
  const holder = new Client({ connectionString: pg.url });
  await holder.connect();
  const l = await underFault('long-transaction', 4, async () => {
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()'); // a writer: readers wait for it to settle
    await sleep(4000);
    await holder.query('COMMIT');
  });
  await holder.end();
  expectNothingLost(l, 4);
  expect(l.stallMs).toBeGreaterThan(3000); // the stall is real and shows
});

it('poison jobs fail alone: no worker crashes and other turns complete', async () => {
  const turns = new Queue('turns', { connection: { url: redis.url }, prefix: 'faults' });
  const commands = new Queue('commands', { connection: { url: redis.url }, prefix: 'faults' });
  const poison = await Promise.all([
    turns.add('runTurn', { not: 'a turn' }),
    turns.add('noSuchJob', { tenantId: hub.tenantId }),
    commands.add('command', { command: { type: 'Explode' } }),
    turns.add(
      'runTurn',
      { tenantId: hub.tenantId, sessionId: 'no-such-session', turnId: 't', reason: 'start', trace: { correlationId: 'poison' } },
      { attempts: 2 },
    ),
  ]);
  const before = hub.live().length;
  const l = await underFault('poison', 4, async () => undefined);
  expectNothingLost(l, 4);
  expect(hub.live()).toHaveLength(before);
  // Malformed jobs fail at once (unrecoverable); a well-formed turn of no session finds nothing
  // to run and finishes. None is retried forever or left holding a worker.
  const finalStates = ['failed', 'failed', 'failed', 'completed'];
  for (const [i, j] of poison.entries()) {
    const q = j.queueName === 'turns' ? turns : commands;
    const deadline = Date.now() + 20_000;
    while ((await q.getJobState(String(j.id))) !== finalStates[i] && Date.now() < deadline) await sleep(200);
    expect(await q.getJobState(String(j.id))).toBe(finalStates[i]);
  }
  await turns.close();
  await commands.close();
});

it('clients that stop reading: closed 4008 at a bounded send buffer, the others finish every turn, ingress memory stays flat', async () => {
  // An ingress and a worker of their own (their own queue prefix, so only this worker runs these
  // turns, at full speed): a paused socket must be sent more than the kernel's buffers (about
  // 4 MB on loopback) before a byte waits in ingress.
  const limit = 64 * 1024;
  const env = { ...hub.env(), HUB_QUEUE_PREFIX: 'faults-slow', LOG_LEVEL: 'info' };
  const ingress = new HubProcess(['ingress'], { ...env, PORT: '0', HOST: '127.0.0.1', HUB_WS_MAX_BUFFERED_BYTES: String(limit) });
  const worker = new HubProcess(['worker'], { ...env, HUB_OFFLINE_DELAY_MS: '0' });
  try {
    const url = String((await ingress.waitForLog('ingress listening', 60_000)).url).replace('[::1]', '127.0.0.1');
    await worker.waitForLog('worker started', 60_000);
    const session = 'slow-consumers';
    const clients = await Promise.all(Array.from({ length: 8 }, () => TransportTestClient.connect(url, hub.apiKey, { session })));
    await Promise.all(clients.map((c) => c.waitFor('snapshot', (x) => x.state !== null)));
    const rssBefore = rssOf(ingress);
    const [submitter, ...rest] = clients;
    const paused = rest.slice(0, 3);
    const reading = [submitter, ...rest.slice(3)];
    const tcp = (c: TransportTestClient) => (c.ws as unknown as { _socket: Socket })._socket;
    paused.forEach((c) => tcp(c).pause());
    let bytes = 0;
    submitter.ws.on('message', (raw: Buffer) => (bytes += raw.length));
    let turns = 0;
    const t0 = Date.now();
    while (bytes < 6 * 1024 * 1024 && turns < 400) {
      submitter.send([{ type: 'submit', prompt: 'long answer 5000' }]);
      turns++;
      const done = (c: TransportTestClient) =>
        c.state?.status === 'idle' && c.state.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').length === turns;
      await Promise.all(reading.map((c) => c.waitFor(`turn ${turns}`, done, 30_000)));
    }
    const rssAfter = rssOf(ingress);
    paused.forEach((c) => tcp(c).resume());
    await Promise.all(paused.map((c) => c.waitFor('the slow consumer close', (x) => x.closeCode !== null, 30_000)));
    expect(paused.map((c) => c.closeCode)).toEqual([4008, 4008, 4008]);
    expect(reading.map((c) => c.closeCode)).toEqual(reading.map(() => null));
    for (const c of reading) expect(c.state).toEqual(submitter.state);
    // What ingress held for each when it gave up: the limit and at most a frame more.
    const closes = ingress.stderr
      .split('\n')
      .filter((l) => l.includes('closing a slow consumer'))
      .map((l) => (JSON.parse(l) as { buffered_bytes: number }).buffered_bytes);
    expect(closes).toHaveLength(3);
    for (const b of closes) expect(b).toBeLessThan(limit + 64 * 1024);
    // A coarse guard only (the heap grows while megabytes stream to the readers, about 60 MB
    // here): the bound that matters is what was held for each paused socket, above.
    expect(rssAfter - rssBefore).toBeLessThan(160 * 1024 * 1024);
    process.stdout.write(
      `\nslow consumers: ${turns} turns, ${(bytes / 1024 / 1024).toFixed(1)} MB to each reader; ingress held ${closes.join(', ')} bytes at the closes; RSS ${((rssAfter - rssBefore) / 1024 / 1024).toFixed(1)} MB over the run\n`,
    );
    report['slow-consumers'] = {
      acknowledged: turns,
      completed: turns,
      lost: 0,
      duplicated: 0,
      stallMs: 0,
      errors: paused.map((c) => `close ${c.closeCode}`),
      settleMs: Date.now() - t0,
    };
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await Promise.all([ingress.kill('SIGKILL'), worker.kill('SIGKILL')]);
  }
});

/** A process's resident memory, in bytes (Linux). */
function rssOf(p: HubProcess): number {
  const status = readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}
