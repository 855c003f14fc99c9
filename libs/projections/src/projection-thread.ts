import { Worker } from 'node:worker_threads';

export interface ProjectionThreadOptions {
  databaseUrl: string;
  log: (message: string, error?: string) => void;
}

const RESTART_MS = 1000;

/**
 * The hub's projections on a worker thread of this process. A worker process's event loop is
 * busy running turns; on a thread of their own the projections' batches do not queue behind it
 * (under turn load that queueing was most of their lag). If the thread dies it is started again;
 * its lock connection dies with it, so a standby elsewhere may take over meanwhile.
 */
export class ProjectionThread {
  private worker: Worker | undefined;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: ProjectionThreadOptions) {}

  /** Resolves once the thread's runner has connected (rejects if it cannot). */
  start(): Promise<void> {
    // `eval` + require: the thread loads the entry through the same module hooks as this process
    // (bin/hub runs TypeScript through @swc-node/register).
    const entry = require.resolve('./projection-thread-main');
    const worker = new Worker(`require(${JSON.stringify(entry)})`, { eval: true, workerData: { databaseUrl: this.o.databaseUrl } });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      worker.on('message', (m: { type: string; message?: string; error?: string }) => {
        if (m.type === 'log') this.o.log(m.message ?? '', m.error);
        else if (m.type === 'started') resolve();
        else if (m.type === 'failed') reject(new Error(`projections: ${m.error}`));
      });
      worker.on('error', (e) => this.o.log('projections: thread failed', e.message));
      worker.on('exit', () => {
        reject(new Error('projections: thread exited before it started'));
        if (this.worker === worker && !this.stopping) this.restart();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((r) => worker.once('exit', () => r()));
    worker.postMessage({ type: 'stop' });
    const timeout = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timeout);
  }

  private restart(): void {
    this.timer = setTimeout(() => {
      this.start().catch((e: unknown) => this.o.log('projections: thread restart failed', (e as Error).message));
    }, RESTART_MS);
    this.timer.unref();
  }
}
