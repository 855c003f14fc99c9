import { Queue, Worker } from 'bullmq';
import { connectionOf, watchRedis, type QueueConnection } from '@hub/queue';

/**
 * Health that proves this worker can take a job off a queue, not just reach Redis: a private
 * queue per worker process, one tiny job per check, answered by this process's own consumer.
 * It is not in the job catalog on purpose — it carries no work and no other process may take it.
 */
export class DequeueProbe {
  private readonly name: string;
  private queue?: Queue;
  private worker?: Worker;

  constructor(
    private readonly conn: QueueConnection,
    workerId: string,
  ) {
    this.name = `probe-${workerId}`;
  }

  async start(): Promise<void> {
    const connection = connectionOf(this.conn);
    this.queue = watchRedis(new Queue(this.name, { connection, prefix: this.conn.prefix }));
    this.worker = watchRedis(new Worker(this.name, async () => 'ok', { connection, prefix: this.conn.prefix, concurrency: 1 }));
    await this.worker.waitUntilReady();
  }

  async roundTrip(timeoutMs: number): Promise<void> {
    if (!this.queue) throw new Error('probe not started');
    const job = await this.queue.add('probe', {}, { removeOnComplete: true, removeOnFail: true });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const state = await this.queue.getJobState(String(job.id));
      if (state === 'completed' || state === 'unknown') return; // removed on completion
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`probe job not dequeued within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    await this.worker?.close();
    await this.queue?.obliterate({ force: true }).catch(() => undefined);
    await this.queue?.close();
  }
}
