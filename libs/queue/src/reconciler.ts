import { watchRedis } from './redis-watch';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { foldSession, sessionStreamId, type HubEvent } from '@hub/domain';
import type { HubQueues, QueueConnection } from './queues';
import type { TraceCarrier } from './catalog';
import type { ApprovalDeadlines } from './approval-deadlines';

/** The log as the reconciler reads it: one SQL query for candidates, then the few candidate streams. */
export interface ReconcilerLog {
  /** Reads the turns of every tenant: system work (`asSystem(pool, 'reconciler')`). */
  query<R extends object>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
  readStream(tenantId: string, streamId: string): Promise<{ version: number; events: readonly HubEvent[] }>;
}

export interface ReconcilerOptions {
  log: ReconcilerLog;
  queues: HubQueues;
  connection: QueueConnection;
  /**
   * A turn whose stream has been quiet this long, with no job for it in any queue, is lost
   * (the worker's BullMQ lock duration: a live holder renews within it, a dead one is taken
   * over by BullMQ itself within it while Redis keeps its data).
   */
  quietMs: number;
  /** How long one scan may hold the scan lock (a crashed scanner frees it after this). */
  lockMs: number;
  /** Candidates looked at per scan; the rest wait for the next one. */
  batch?: number;
  trace?: () => TraceCarrier;
  onRecovered?: (turn: LostTurn) => void;
  /** Pending approvals' deadlines Redis lost, scheduled again in the same scan, under its lock (ADR 0050). */
  deadlines?: ApprovalDeadlines;
}

export interface LostTurn {
  tenantId: string;
  sessionId: string;
  turnId: string;
  version: number;
}

const SESSION_PREFIX = sessionStreamId('');
const LOCK_RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Sessions whose last turn lifecycle event is a `TurnStarted` and whose stream has not moved
 * for `quietMs`. One backward probe of the (tenant, stream, position) index per quiet session
 * stream: it stops at the stream's last lifecycle event, so it reads at most one turn's events.
 */
const QUIET_RUNNING_TURNS = `
SELECT s.tenant_id::text AS tenant_id, s.stream_id, s.version, t.turn_id
  FROM streams s
  CROSS JOIN LATERAL (
    SELECT e.type, e.data->>'turnId' AS turn_id FROM events e
     WHERE e.tenant_id = s.tenant_id AND e.stream_id = s.stream_id
       AND e.type IN ('TurnStarted', 'TurnCompleted', 'TurnFailed', 'TurnCancelled')
     ORDER BY e.global_position DESC LIMIT 1) t
 WHERE s.stream_id LIKE $1 AND s.updated_at < now() - make_interval(secs => $2::float8 / 1000)
   AND t.type = 'TurnStarted'
 ORDER BY s.updated_at
 LIMIT $3`;

/**
 * Finds turns the log says are running but no queue holds (Redis restarted without its data, or
 * evicted it) and schedules them again with reason `recover`. The log is the source of truth:
 * the runner continues a recovered turn from what is recorded, so nothing recorded is redone.
 *
 * Safe with every worker running it: one scan at a time under a Redis lock, and the recovery job
 * id is derived from the turn and the stream version, so two scans of an unchanged stream add
 * one job. A turn a live worker holds (an active job, or a waiting or delayed one of its known
 * ids) is left alone, and so is a turn waiting for a person's approval: that approval's deadline,
 * should Redis have lost its job, is `deadlines`' to schedule again (approval-deadlines.ts).
 */
export class TurnReconciler {
  private readonly redis: Redis;
  private readonly lockKey: string;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly opts: ReconcilerOptions) {
    // Fail fast while Redis is down: the next scan tries again.
    // A scan reports its own failure; the outage itself is logged once per process.
    this.redis = watchRedis(new Redis(opts.connection.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true }));
    this.lockKey = `${opts.connection.prefix}:reconciler:lock`;
  }

  /** Scans now, then every `intervalMs`; a failed scan is reported and the next one runs anyway. */
  start(intervalMs: number, onError: (e: unknown) => void): void {
    const tick = async () => {
      await this.reconcileOnce().catch(onError);
      if (!this.stopped) this.timer = setTimeout(() => void tick(), intervalMs).unref();
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.redis.disconnect();
  }

  /** One scan: the turns it re-scheduled, or `null` when another worker's scan holds the lock. */
  async reconcileOnce(): Promise<LostTurn[] | null> {
    const token = randomBytes(8).toString('hex');
    const got = await this.redis.set(this.lockKey, token, 'PX', this.opts.lockMs, 'NX');
    if (got !== 'OK') return null;
    try {
      const turns = await this.scan();
      await this.opts.deadlines?.reschedule();
      return turns;
    } finally {
      await this.redis.eval(LOCK_RELEASE, 1, this.lockKey, token).catch(() => undefined); // it expires anyway
    }
  }

  private async scan(): Promise<LostTurn[]> {
    const { rows } = await this.opts.log.query<{ tenant_id: string; stream_id: string; version: number; turn_id: string }>(QUIET_RUNNING_TURNS, [
      `${SESSION_PREFIX}%`,
      this.opts.quietMs,
      this.opts.batch ?? 500,
    ]);
    if (rows.length === 0) return [];
    const held = new Set((await this.opts.queues.activePayloads('runTurn')).map((p) => turnKey(p.tenantId, p.sessionId, p.turnId)));
    const recovered: LostTurn[] = [];
    for (const row of rows) {
      const turn = { tenantId: row.tenant_id, sessionId: row.stream_id.slice(SESSION_PREFIX.length), turnId: row.turn_id, version: row.version };
      if (held.has(turnKey(turn.tenantId, turn.sessionId, turn.turnId))) continue;
      if (await this.recoverIfLost(turn)) {
        recovered.push(turn);
        this.opts.onRecovered?.(turn);
      }
    }
    return recovered;
  }

  private async recoverIfLost(turn: LostTurn): Promise<boolean> {
    const { version, events } = await this.opts.log.readStream(turn.tenantId, sessionStreamId(turn.sessionId));
    const state = foldSession(events);
    // Waiting for a person is not lost; and a stream that moved since the query is alive.
    if (state.status !== 'active' || state.activeTurn.turnId !== turn.turnId || state.activeTurn.status !== 'running') return false;
    if (version !== turn.version) return false;
    const payload = { tenantId: turn.tenantId, sessionId: turn.sessionId, turnId: turn.turnId, reason: 'recover' as const, trace: this.trace() };
    const keys = ['start', `recover:${version}`, ...approvalKeysOf(state.closedApprovals, turn.turnId)];
    for (const key of keys) {
      if (LIVE_STATES.has(await this.opts.queues.jobState('runTurn', payload, key))) return false;
    }
    await this.opts.queues.enqueue('runTurn', payload, { key: `recover:${version}` });
    return true;
  }

  private trace(): TraceCarrier {
    return this.opts.trace?.() ?? { correlationId: 'reconciler' };
  }
}

/** Job states in which BullMQ will still run (or is running) the job. */
const LIVE_STATES = new Set(['active', 'waiting', 'waiting-children', 'delayed', 'prioritized']);

function turnKey(tenantId: string, sessionId: string, turnId: string): string {
  return `${tenantId}\u0000${sessionId}\u0000${turnId}`;
}

/** The resume job keys the command handler used for the approvals of `turnId`. */
function approvalKeysOf(closed: ReadonlyMap<string, { turnId: string }>, turnId: string): string[] {
  return [...closed].filter(([, a]) => a.turnId === turnId).map(([approvalId]) => `approval:${approvalId}`);
}
