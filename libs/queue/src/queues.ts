import { watchRedis } from './redis-watch';
import { Job, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import type { ConnectionOptions } from 'bullmq';
import { JOBS, JobName, JobPayload, QUEUE_NAMES, assertProcessorsCover } from './catalog';
import { JobWaiters } from './job-waiters';

export interface QueueConnection {
  redisUrl: string;
  /** BullMQ key prefix. Hash-tagged (`{hub}`) when running on Redis Cluster. */
  prefix: string;
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

/** Producer side: validated, idempotent enqueues; optional wait for a job's result. */
export class HubQueues {
  private readonly queues = new Map<string, Queue>();
  /** Per queue, opened on the first wait for one of its jobs. */
  private readonly events = new Map<string, QueueEvents>();
  /** Per queue, every wait for one of its jobs (one set of listeners, whatever the number of waits). */
  private readonly waiters = new Map<string, JobWaiters>();

  constructor(private readonly conn: QueueConnection) {
    for (const name of QUEUE_NAMES) {
      this.queues.set(name, watchRedis(new Queue(name, { connection: connectionOf(conn), prefix: conn.prefix })));
    }
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions = {}): Promise<Job> {
    const def = JOBS[name];
    const data = def.schema.parse(payload);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's jobId takes its own payload type
    const jobId = (def.jobId as (p: any, key: string) => string)(data, opts.key ?? '');
    return this.queue(def.queue).add(name, data, {
      jobId,
      attempts: def.attempts,
      backoff: { type: 'exponential', delay: def.backoffMs },
      delay: opts.delayMs,
      removeOnComplete: { age: 24 * 3600, count: 50_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
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

  /** Enqueue and wait for the processor's return value (or its final failure). */
  async enqueueAndWait<N extends JobName>(name: N, payload: JobPayload<N>, timeoutMs: number): Promise<unknown> {
    const waiters = await this.waitersOf(JOBS[name].queue);
    const job = await this.enqueue(name, payload);
    // Not job.waitUntilFinished: it adds a Queue listener per call (MaxListenersExceededWarning).
    return waiters.wait(job, timeoutMs);
  }

  private async waitersOf(queue: string): Promise<JobWaiters> {
    const events = await this.queueEvents(queue);
    let waiters = this.waiters.get(queue);
    if (!waiters) this.waiters.set(queue, (waiters = new JobWaiters(events, this.queue(queue))));
    return waiters;
  }

  /** The events of the job's own queue: a job is only ever finished on the queue it was added to. */
  private async queueEvents(queue: string): Promise<QueueEvents> {
    let events = this.events.get(queue);
    if (!events) {
      events = watchRedis(new QueueEvents(queue, { connection: connectionOf(this.conn), prefix: this.conn.prefix }));
      this.events.set(queue, events);
    }
    await events.waitUntilReady();
    return events;
  }

  private queue(name: string): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  async close(): Promise<void> {
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export type Processor<N extends JobName> = (payload: JobPayload<N>, job: Job) => Promise<unknown>;
export type ProcessorMap = { [N in JobName]: Processor<N> };

export interface WorkerOptions {
  concurrency: number;
  lockDurationMs: number;
  /** Decides whether a thrown error is worth retrying; see `retryability.ts`. */
  isRetryable: (e: unknown) => boolean;
}

/** Consumer side: one BullMQ worker per queue, dispatching by job name to its processor. */
export function startWorkers(conn: QueueConnection, processors: ProcessorMap, opts: WorkerOptions): Worker[] {
  assertProcessorsCover(Object.keys(processors));
  return QUEUE_NAMES.map((queue) =>
    watchRedis(
      new Worker(
        queue,
        async (job: Job) => {
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
        },
        {
          connection: connectionOf(conn),
          prefix: conn.prefix,
          concurrency: opts.concurrency,
          lockDuration: opts.lockDurationMs,
          stalledInterval: Math.max(1000, Math.floor(opts.lockDurationMs / 2)),
          maxStalledCount: 5,
        },
      ),
    ),
  );
}
