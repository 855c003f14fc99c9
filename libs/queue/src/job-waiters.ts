import type { EventEmitter } from 'node:events';
import { Job, type Queue, type QueueEvents } from 'bullmq';

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

/**
 * Waits for jobs of one queue through a fixed set of listeners: one `completed`, one `failed`
 * and one `closing`, dispatching by job id. BullMQ's `job.waitUntilFinished` adds a `closing`
 * listener to the Queue per waiting call, so eleven commands in flight at once printed
 * `MaxListenersExceededWarning` (issue 11, defect 9); waits here cost a map entry instead.
 */
export class JobWaiters {
  private readonly waiting = new Map<string, Set<(o: Outcome) => void>>();

  constructor(
    events: QueueEvents,
    private readonly queue: Queue,
  ) {
    events.on('completed', ({ jobId, returnvalue }) => this.settle(jobId, { ok: true, value: returnvalue }));
    events.on('failed', ({ jobId, failedReason }) => this.settle(jobId, { ok: false, error: new Error(failedReason) }));
    // `closing` is emitted by BullMQ's Queue.close() but missing from its typed listener map.
    (queue as unknown as EventEmitter).on('closing', () => {
      for (const id of [...this.waiting.keys()]) this.settle(id, { ok: false, error: new Error('the queue is closing') });
    });
  }

  /** Jobs being waited for now (a test's view that nothing is left behind). */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * The job's return value, or its final failure; after `timeoutMs` an error whose message says
   * "timed out before finishing" (as BullMQ's own wait does: callers tell a timeout by it).
   */
  wait(job: Job, timeoutMs: number): Promise<unknown> {
    const jobId = String(job.id);
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const set = this.waiting.get(jobId);
        set?.delete(settle);
        if (set?.size === 0) this.waiting.delete(jobId);
        if (o.ok) resolve(o.value);
        else reject(o.error);
      };
      const timer = setTimeout(() => settle({ ok: false, error: new Error(`job ${job.name} (id=${jobId}) timed out before finishing after ${timeoutMs} ms`) }), timeoutMs);
      const set = this.waiting.get(jobId) ?? new Set();
      set.add(settle);
      this.waiting.set(jobId, set);
      // The job may have finished before this wait was registered: look once, after registering.
      this.finished(jobId).then(
        (o) => o && settle(o),
        (e: unknown) => settle({ ok: false, error: e instanceof Error ? e : new Error(String(e)) }),
      );
    });
  }

  private settle(jobId: string, o: Outcome): void {
    for (const settle of [...(this.waiting.get(jobId) ?? [])]) settle(o);
  }

  private async finished(jobId: string): Promise<Outcome | null> {
    const job = await Job.fromId(this.queue, jobId);
    if (!job) return { ok: false, error: new Error(`job ${jobId} is not in the queue`) };
    const state = await job.getState();
    if (state === 'completed') return { ok: true, value: job.returnvalue };
    if (state === 'failed') return { ok: false, error: new Error(job.failedReason) };
    return null;
  }
}
