import { Queue } from 'bullmq';
import { HUB_PROJECTIONS, projectionStatus } from '@hub/projections';
import { HubQueues, QUEUE_NAMES, connectionOf, type QueueConnection } from '@hub/queue';
import { asSystem, createPool } from '@hub/event-store';

export interface StatusOptions {
  databaseUrl: string;
  queue: QueueConnection;
  /** A running turn older than this is reported stuck. */
  stuckAfterMs: number;
  json: boolean;
}

/**
 * Where a running turn is: a worker runs it (`running`), its job waits for a worker (`queued`), it
 * waits for a person (`awaiting_approval`), its worker died and its lock expired with the job
 * still active (`orphaned`), or Redis has no job for it at all (`lost`).
 */
type TurnState = 'running' | 'queued' | 'awaiting_approval' | 'orphaned' | 'lost';

interface RunningTurn {
  tenantId: string;
  sessionId: string;
  turnId: string;
  startedAt: string;
  runningMs: number;
  state: TurnState;
  /** Whether a worker holds the turn's job now, its lock alive. */
  held: boolean;
  /** Orphaned or lost, or running or queued for longer than --stuck-after; never while a person decides. */
  stuck: boolean;
}

/**
 * `hub status`: what the deployment is doing, from Redis and the read models — workers alive per
 * queue, queue depths, running turns and the stuck ones (running longer than --stuck-after, or
 * whose worker's lock expired, or with no job at all; a turn waiting for an approval is not
 * stuck), pending approvals, projection lag. Exit 0 when nothing is stuck and some worker is
 * alive, 1 otherwise (for scripts and probes).
 */
export async function status(o: StatusOptions, out: (line: string) => void): Promise<number> {
  const pool = createPool(o.databaseUrl, { max: 2 });
  // Running turns and pending approvals of every tenant: system work.
  const db = asSystem(pool, 'metrics');
  const queues = new HubQueues({ ...o.queue, fair: false });
  const raw = QUEUE_NAMES.map((name) => new Queue(name, { connection: connectionOf(o.queue), prefix: o.queue.prefix }));
  try {
    const [counts, workers, jobs, turns, approvals, projections, waitingForPeople] = await Promise.all([
      queues.counts(),
      // One process may hold several consumers of a queue (the turns queue's fetchers, ADR 0051),
      // all under its name (BullMQ's `rawname`): workers are the names, not the connections.
      Promise.all(raw.map(async (q) => ({ queue: q.name, workers: new Set((await q.getWorkers()).map((w) => w.rawname)).size }))),
      queues.jobsByHolder('runTurn'),
      db.query<{ tenant_id: string; session_id: string; turn_id: string; started_at: Date }>(
        `SELECT tenant_id, session_id, turn_id, started_at FROM read_turns WHERE status = 'running' ORDER BY started_at LIMIT 1000`,
      ),
      db.query<{ n: string; oldest: Date | null }>(`SELECT count(*)::text AS n, min(requested_at) AS oldest FROM read_approvals WHERE status = 'pending'`),
      projectionStatus(
        pool,
        HUB_PROJECTIONS.map((p) => p.name),
      ),
      db.query<{ tenant_id: string; session_id: string; turn_id: string }>(
        `SELECT DISTINCT tenant_id, session_id, turn_id FROM read_approvals WHERE status = 'pending'`,
      ),
    ]);
    const now = Date.now();
    const keys = (ps: Array<{ tenantId: string; sessionId: string; turnId: string }>) => new Set(ps.map((p) => `${p.tenantId}/${p.sessionId}/${p.turnId}`));
    const [held, orphaned, queued] = [keys(jobs.held), keys(jobs.orphaned), keys(jobs.waiting)];
    const asking = new Set(waitingForPeople.rows.map((r) => `${r.tenant_id}/${r.session_id}/${r.turn_id}`));
    const running: RunningTurn[] = turns.rows.map((r) => {
      const key = `${r.tenant_id}/${r.session_id}/${r.turn_id}`;
      const runningMs = now - r.started_at.getTime();
      const state: TurnState = held.has(key)
        ? 'running'
        : queued.has(key)
          ? 'queued'
          : asking.has(key)
            ? 'awaiting_approval'
            : orphaned.has(key)
              ? 'orphaned'
              : 'lost';
      const stuck = state === 'orphaned' || state === 'lost' || (state !== 'awaiting_approval' && runningMs > o.stuckAfterMs);
      return {
        tenantId: r.tenant_id,
        sessionId: r.session_id,
        turnId: r.turn_id,
        startedAt: r.started_at.toISOString(),
        runningMs,
        state,
        held: state === 'running',
        stuck,
      };
    });
    const report = {
      workers,
      queues: counts,
      turns: {
        running: running.length,
        awaitingApproval: running.filter((t) => t.state === 'awaiting_approval').length,
        stuck: running.filter((t) => t.stuck),
      },
      approvals: { pending: Number(approvals.rows[0]?.n ?? 0), oldestRequestedAt: approvals.rows[0]?.oldest?.toISOString() ?? null },
      projections: projections.map((p) => ({ name: p.name, lagEvents: p.lagEvents, lagMs: p.lagMs })),
    };
    if (o.json) out(JSON.stringify(report));
    else for (const line of humanReport(report)) out(line);
    const alive = workers.some((w) => w.workers > 0);
    return alive && report.turns.stuck.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(raw.map((q) => q.close()));
    await queues.close();
    await pool.end();
  }
}

function humanReport(r: {
  workers: Array<{ queue: string; workers: number }>;
  queues: Array<{ queue: string; counts: Record<string, number> }>;
  turns: { running: number; awaitingApproval: number; stuck: RunningTurn[] };
  approvals: { pending: number; oldestRequestedAt: string | null };
  projections: Array<{ name: string; lagEvents: number; lagMs: number }>;
}): string[] {
  const lines = ['queue      workers  waiting  prioritized  active  delayed  failed'];
  for (const q of r.queues) {
    const w = r.workers.find((x) => x.queue === q.queue)?.workers ?? 0;
    const c = q.counts;
    lines.push(
      `${q.queue.padEnd(10)} ${String(w).padStart(7)}  ${String(c.wait ?? 0).padStart(7)}  ${String(c.prioritized ?? 0).padStart(11)}  ${String(c.active ?? 0).padStart(6)}  ${String(c.delayed ?? 0).padStart(7)}  ${String(c.failed ?? 0).padStart(6)}`,
    );
  }
  lines.push(`turns running: ${r.turns.running} (${r.turns.awaitingApproval} awaiting approval), stuck: ${r.turns.stuck.length}`);
  const why: Record<TurnState, string> = {
    running: '',
    queued: ', queued for a worker',
    awaiting_approval: '',
    orphaned: ", its worker's lock expired (the worker died)",
    lost: ', no job in Redis (the reconciler re-schedules it)',
  };
  for (const t of r.turns.stuck)
    lines.push(`  stuck ${t.sessionId} turn ${t.turnId} (tenant ${t.tenantId}): running ${Math.round(t.runningMs / 1000)} s${why[t.state]}`);
  lines.push(`approvals pending: ${r.approvals.pending}${r.approvals.oldestRequestedAt ? ` (oldest requested ${r.approvals.oldestRequestedAt})` : ''}`);
  for (const p of r.projections) lines.push(`projection ${p.name}: ${p.lagEvents} events behind (${p.lagMs} ms)`);
  if (!r.workers.some((w) => w.workers > 0)) lines.push('no worker is connected');
  return lines;
}
