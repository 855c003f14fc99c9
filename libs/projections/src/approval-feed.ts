import { ListenConnection } from '@hub/event-store';
import type { Pool } from 'pg';
import { ReadModels } from './read-models';
import { PROJECTIONS_CHANNEL } from './store';
import type { ApprovalView } from './views';

interface Watcher {
  tenantId: string;
  cursor: number;
  onChanges: (changes: ApprovalView[]) => void;
  busy: boolean;
  again: boolean;
  closed: boolean;
}

/**
 * Live changes of the approvals read model, one instance per process: one LISTEN connection on
 * the projections' channel; each commit of a projection batch wakes every watcher, which reads
 * its tenant's approvals changed after its cursor. A 1 s safety poll covers a lost NOTIFY.
 */
export class ApprovalFeed {
  private readonly watchers = new Set<Watcher>();
  private readonly listen: ListenConnection;
  private readonly reads: ReadModels;
  private readonly poll: NodeJS.Timeout;
  private started: Promise<void> | undefined;

  constructor(
    pool: Pool,
    connectionString: string,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {
    this.reads = new ReadModels(pool);
    this.listen = new ListenConnection(connectionString, () => this.wakeAll(), log, PROJECTIONS_CHANNEL);
    this.poll = setInterval(() => this.wakeAll(), 1000);
    this.poll.unref();
  }

  start(): Promise<void> {
    this.started ??= this.listen.connect().catch((e: unknown) => {
      this.started = undefined;
      throw e;
    });
    return this.started;
  }

  /** Calls `onChanges` with every change of the tenant's approvals after `after`, in order. */
  async watch(tenantId: string, after: number, onChanges: (changes: ApprovalView[]) => void): Promise<{ close(): void }> {
    await this.start();
    const w: Watcher = { tenantId, cursor: after, onChanges, busy: false, again: false, closed: false };
    this.watchers.add(w);
    this.wake(w);
    return {
      close: () => {
        w.closed = true;
        this.watchers.delete(w);
      },
    };
  }

  async close(): Promise<void> {
    clearInterval(this.poll);
    for (const w of this.watchers) w.closed = true;
    this.watchers.clear();
    await this.listen.close();
  }

  private wakeAll(): void {
    for (const w of this.watchers) this.wake(w);
  }

  private wake(w: Watcher): void {
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    void this.drain(w).finally(() => {
      w.busy = false;
      if (w.again && !w.closed) {
        w.again = false;
        this.wake(w);
      }
    });
  }

  private async drain(w: Watcher): Promise<void> {
    try {
      for (;;) {
        const changes = await this.reads.approvalChanges(w.tenantId, w.cursor);
        if (w.closed || changes.length === 0) return;
        w.cursor = changes[changes.length - 1].position;
        w.onChanges(changes);
        if (changes.length < 500) return;
      }
    } catch (e) {
      this.log('approval feed: read failed (the next wake-up retries)', e);
    }
  }
}
