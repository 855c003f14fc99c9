import { hostname } from 'node:os';
import { EventEmitter } from 'node:events';
import { watchRedis } from './redis-watch';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { ATTR, hubMetrics, setSpanAttributes } from '@hub/telemetry';
import type { ConnectionOptions } from 'bullmq';
import { JOBS, JobName, JobPayload, QUEUE_NAMES, assertProcessorsCover, tenantOfJob } from './catalog';
import { FairShare } from './fair-share';
import { SlotShare } from './slot-share';

export interface QueueConnection {
  redisUrl: string;
  /** BullMQ key prefix. Hash-tagged (`{hub}`) when running on Redis Cluster. */
  prefix: string;
  /**
   * Serve tenants round-robin on every queue (fair-share.ts); default on. Off, jobs run in
   * arrival order. Producers and workers of one deployment should agree.
   */
  fair?: boolean;
  /**
   * BullMQ's own spans (bullmq-otel: a producer span per add, a consumer span per job), parents
   * of the hub's job spans. On when the process exports traces.
   */
  traced?: boolean;
}

/** BullMQ's telemetry option for `c`. */
function telemetryOf(c: QueueConnection): { telemetry?: BullMQOtel } {
  return c.traced ? { telemetry: new BullMQOtel({ tracerName: 'bullmq' }) } : {};
}

/** BullMQ connection options for `c` (its blocking commands need maxRetriesPerRequest: null). */
export function connectionOf(c: QueueConnection): ConnectionOptions {
  return { url: c.redisUrl, maxRetriesPerRequest: null };
}

export interface EnqueueOptions {
  /** Distinguishes several jobs of one catalog entry for the same subject (e.g. a resume). */
  key?: string;
  delayMs?: number;
}

/** Producer side: validated, idempotent enqueues. */
export class HubQueues {
  private readonly queues = new Map<string, Queue>();
  private readonly fair: FairShare | undefined;

  constructor(private readonly conn: QueueConnection) {
    this.fair = conn.fair === false ? undefined : new FairShare(conn.redisUrl, conn.prefix);
    for (const name of QUEUE_NAMES) {
      this.queues.set(name, watchRedis(new Queue(name, { connection: connectionOf(conn), prefix: conn.prefix, ...telemetryOf(conn) })));
    }
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions = {}): Promise<Job> {
    const def = JOBS[name];
    const data = def.schema.parse(payload);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's jobId takes its own payload type
    const jobId = (def.jobId as (p: any, key: string) => string)(data, opts.key ?? '');
    const priority = await this.fair?.priorityFor(def.queue, tenantOfJob(name, data));
    const job = await this.queue(def.queue).add(name, data, {
      jobId,
      priority,
      attempts: def.attempts,
      backoff: { type: 'exponential', delay: def.backoffMs },
      delay: opts.delayMs,
      removeOnComplete: { age: 24 * 3600, count: 50_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    jobsAdded.emit(def.queue);
    return job;
  }

  /** The BullMQ state of the job `enqueue(name, payload, { key })` adds; `'unknown'` when Redis holds none. */
  async jobState<N extends JobName>(name: N, payload: JobPayload<N>, key = ''): Promise<string> {
    const def = JOBS[name];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's jobId takes its own payload type
    const jobId = (def.jobId as (p: any, key: string) => string)(payload, key);
    return this.queue(def.queue).getJobState(jobId);
  }

  /** Payloads of the `name` jobs a worker holds now (BullMQ's active list: workers x concurrency long). */
  async activePayloads<N extends JobName>(name: N): Promise<JobPayload<N>[]> {
    const jobs = await this.queue(JOBS[name].queue).getJobs(['active']);
    return jobs.filter((j) => j && j.name === name).map((j) => j.data as JobPayload<N>);
  }

  /**
   * The `name` jobs Redis has now, by whether anyone will run them: `held` (active, its worker's
   * lock alive), `orphaned` (active, but the lock expired: the worker died and no stalled-job
   * check has moved the job back yet) and `waiting` (waiting, prioritized or delayed).
   */
  async jobsByHolder<N extends JobName>(name: N): Promise<Record<'held' | 'orphaned' | 'waiting', JobPayload<N>[]>> {
    const q = this.queue(JOBS[name].queue);
    const mine = (jobs: Job[]) => jobs.filter((j) => j && j.name === name);
    const [active, waiting] = await Promise.all([q.getJobs(['active']).then(mine), q.getJobs(['wait', 'prioritized', 'delayed']).then(mine)]);
    const client = await q.getBackend().client;
    const locked = await Promise.all(active.map(async (j) => (await client.get(`${q.toKey(j.id ?? '')}:lock`)) !== null));
    return {
      held: active.filter((_, i) => locked[i]).map((j) => j.data as JobPayload<N>),
      orphaned: active.filter((_, i) => !locked[i]).map((j) => j.data as JobPayload<N>),
      waiting: waiting.map((j) => j.data as JobPayload<N>),
    };
  }

  /** Jobs per state in each queue (waiting, prioritized, active, delayed, failed), for metrics and `hub status`. */
  async counts(): Promise<Array<{ queue: string; counts: Record<string, number> }>> {
    return Promise.all(
      [...this.queues].map(async ([queue, q]) => ({ queue, counts: await q.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed') })),
    );
  }

  private queue(name: string): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    await this.fair?.close();
  }
}

export type Processor<N extends JobName> = (payload: JobPayload<N>, job: Job) => Promise<unknown>;
export type ProcessorMap = { [N in JobName]: Processor<N> };

export interface WorkerOptions {
  concurrency: number;
  /**
   * Turn slots a tenant below its share may borrow beyond `concurrency` (slot-share.ts); 0 or
   * unset: none. Only the turns queue: a command holds its slot for milliseconds, a turn for the
   * length of a model call.
   */
  burstSlots?: number;
  lockDurationMs: number;
  /** Decides whether a thrown error is worth retrying; see `retryability.ts`. */
  isRetryable: (e: unknown) => boolean;
}

/**
 * Jobs this process added, by queue: a worker that also schedules turns (the next queued turn
 * when one ends, a resume when an approval deadline passes) lets its shared slots look at the
 * queue at once (slot-share.ts), not at the next tick. Turns ingress schedules (ADR 0025) are
 * seen at the next tick.
 */
const jobsAdded = new EventEmitter().setMaxListeners(0);

/** The consumers `startWorkers` started, and what they hold besides (closed with them). */
export interface StartedWorkers {
  readonly workers: readonly Worker[];
  /** Closes the workers (each finishes the jobs it runs), then their queue handles and the fair tags' connection. */
  close(): Promise<void>;
}

/** Consumer side: one BullMQ worker per queue, dispatching by job name to its processor. */
export function startWorkers(conn: QueueConnection, processors: ProcessorMap, opts: WorkerOptions): StartedWorkers {
  assertProcessorsCover(Object.keys(processors));
  const fair = conn.fair === false ? undefined : new FairShare(conn.redisUrl, conn.prefix);
  const admins: Queue[] = [];
  const workers = QUEUE_NAMES.flatMap((queue) => {
    const process = jobProcessor(queue, processors, opts, fair);
    const sharing = queue === 'turns' && (opts.burstSlots ?? 0) > 0;
    // One handle (one connection) on the queue for what looks at it besides fetching: the shared
    // slots' look at the waiting jobs, the fair tags' reset when it is idle.
    const admin = sharing || fair ? watchRedis(new Queue(queue, { connection: connectionOf(conn), prefix: conn.prefix })) : undefined;
    if (admin) admins.push(admin);
    const slots = sharing && admin ? slotShare(admin, opts) : undefined;
    const concurrency = slots?.fetchSlots ?? opts.concurrency;
    const fetchers = fetchersFor(queue, concurrency);
    return Array.from({ length: fetchers }, (_, i) => {
      const worker: Worker = watchRedis(
        new Worker(queue, (job: Job, token?: string) => (slots ? slots.run(job, token, () => process(job)) : process(job)), {
          connection: connectionOf(conn),
          prefix: conn.prefix,
          // The process's name on every consumer it holds (its Redis client name): `hub status`
          // counts processes, not fetchers.
          name: CONSUMER_NAME,
          concurrency: Math.ceil(concurrency / fetchers),
          lockDuration: opts.lockDurationMs,
          stalledInterval: Math.max(1000, Math.floor(opts.lockDurationMs / 2)),
          maxStalledCount: 5,
          // One stalled-job check per queue and process is enough: the others would repeat it.
          skipStalledCheck: i > 0,
          ...telemetryOf(conn),
        }),
      );
      // Held jobs go back to the queue: closing must not wait for jobs that never started.
      if (slots && i === 0) worker.on('closing', () => slots.close());
      if (fair && admin && i === 0) worker.on('drained', () => void fair.resetIfIdle(admin).catch(() => undefined));
      return worker;
    });
  });
  return {
    workers,
    // In order, each awaited: the queue handles and the tags' connection serve the workers until they are closed.
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(admins.map((a) => a.close()));
      await fair?.close();
    },
  };
}

/**
 * BullMQ workers on the turns queue per process. One BullMQ worker fetches its jobs one
 * `moveToActive` round trip after another, and starts none of a burst until it has fetched it all
 * (its main loop): with a crowd streaming, each round trip waits a turn of a busy event loop, and
 * a wave of 300 submits sat 250-500 ms in the queue (p50) with the admission gate wide open.
 * Several fetch side by side, each taking its share of the concurrency; a small concurrency (a
 * test's, a deployment's of a few slots) keeps one.
 */
export const TURN_FETCHERS = 4;

/** What every consumer of this process is called in Redis (`CLIENT LIST`, a job's `processedBy`). */
const CONSUMER_NAME = `${hostname()}:${process.pid}`;

function fetchersFor(queue: string, concurrency: number): number {
  return queue === 'turns' && concurrency >= TURN_FETCHERS * 16 ? TURN_FETCHERS : 1;
}

/** One job of `queue`, once it runs: checked against the catalog and handed to its processor. */
function jobProcessor(queue: string, processors: ProcessorMap, opts: WorkerOptions, fair: FairShare | undefined) {
  return async (job: Job): Promise<unknown> => {
    // BullMQ's consumer span (when traced) began before anything read the payload: give it
    // the job's correlation id first, so it and every span under it carry one.
    const correlationId = (job.data as { trace?: { correlationId?: unknown } } | undefined)?.trace?.correlationId;
    if (typeof correlationId === 'string') setSpanAttributes({ [ATTR.CORRELATION_ID]: correlationId });
    // Not awaited: the tag only orders later jobs; a Redis hiccup here must not fail this one.
    void fair?.started(queue, job).catch(() => undefined);
    // Time in the queue: from when the job could run (added, or its delay ended) to now.
    if (job.attemptsMade === 0) hubMetrics().queueWait.record(Math.max(0, Date.now() - job.timestamp - (job.opts.delay ?? 0)) / 1000, { queue, job: job.name });
    const name = job.name as JobName;
    const def = JOBS[name];
    if (!def || def.queue !== queue) throw new UnrecoverableError(`job ${job.name} does not belong on ${queue}`);
    const parsed = def.schema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid ${name} payload: ${parsed.error.message}`);
    try {
      return await (processors[name] as Processor<JobName>)(parsed.data as JobPayload<JobName>, job);
    } catch (e) {
      if (opts.isRetryable(e)) throw e;
      throw new UnrecoverableError(e instanceof Error ? e.message : String(e));
    }
  };
}

/** The turns queue's slots shared between tenants (slot-share.ts), looking at the queue through `queue`. */
function slotShare(queue: Queue, opts: WorkerOptions): SlotShare {
  return new SlotShare(queue, {
    slots: opts.concurrency,
    burst: opts.burstSlots ?? 0,
    added: jobsAdded,
    // Every job of the catalog names its tenant (the enqueue's fair share uses the same).
    tenantOf: (job) => (Object.hasOwn(JOBS, job.name) ? String(tenantOfJob(job.name as JobName, job.data)) : 'unknown'),
  });
}
