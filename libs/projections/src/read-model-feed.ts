import { ListenConnection } from '@hub/event-store';
import type { Pool } from 'pg';
import { ReadModels } from './read-models';
import { PROJECTIONS_CHANNEL } from './store';
import type { ApprovalView, SessionChange } from './views';

/** Where a feed's changes come from: a read model's rows changed after a position, oldest first. */
export interface ChangeSource<T> {
  /** Names the source in log lines. */
  name: string;
  /** Rows of the tenant changed after `after`, at most `limit`, in change order. */
  read(reads: ReadModels, tenantId: string, after: number, limit: number): Promise<T[]>;
  /** The change position of a row (the feed's cursor). */
  positionOf(row: T): number;
}

/** The approvals read model: every request and resolution, by `updated_position`. */
export const APPROVAL_CHANGES: ChangeSource<ApprovalView> = {
  name: 'approvals',
  read: (reads, tenantId, after, limit) => reads.approvalChanges(tenantId, after, limit),
  positionOf: (a) => a.position,
};

/** The sessions list: a session each time it moves (its last event's position), and each erased. */
export function sessionChanges(openedBy?: string): ChangeSource<SessionChange> {
  return {
    name: 'sessions',
    read: (reads, tenantId, after, limit) => reads.sessionChanges(tenantId, after, limit, openedBy),
    positionOf: (c) => c.data.position,
  };
}

const PAGE = 500;

interface Watcher {
  tenantId: string;
  cursor: number;
  drain: () => Promise<void>;
  busy: boolean;
  again: boolean;
  closed: boolean;
}

/**
 * Live changes of the read models, one instance per process: one LISTEN connection on the
 * projections' channel; each commit of a projection batch wakes every watcher, which reads its
 * tenant's rows changed after its cursor from its source. A 1 s safety poll covers a lost NOTIFY.
 */
export class ReadModelFeed {
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

  /** Calls `onChanges` with every row of `source` the tenant changed after `after`, in order. */
  async watch<T>(source: ChangeSource<T>, tenantId: string, after: number, onChanges: (changes: T[]) => void): Promise<{ close(): void }> {
    await this.start();
    const w: Watcher = {
      tenantId,
      cursor: after,
      busy: false,
      again: false,
      closed: false,
      drain: async () => {
        try {
          for (;;) {
            const changes = await source.read(this.reads, w.tenantId, w.cursor, PAGE);
            if (w.closed || changes.length === 0) return;
            w.cursor = source.positionOf(changes[changes.length - 1]);
            onChanges(changes);
            if (changes.length < PAGE) return;
          }
        } catch (e) {
          this.log(`${source.name} feed: read failed (the next wake-up retries)`, e);
        }
      },
    };
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
    void w.drain().finally(() => {
      w.busy = false;
      if (w.again && !w.closed) {
        w.again = false;
        this.wake(w);
      }
    });
  }
}
