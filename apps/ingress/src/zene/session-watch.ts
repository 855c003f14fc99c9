import { sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import type { SessionFeed, SessionStreams } from '../streams/session-streams.service';

/**
 * One session's events, committed then live, kept in order for as long as a zene request needs
 * them. Opened before the turn is submitted, so nothing the turn appends can be missed.
 *
 * The starting events are the committed stream, the log the worker decides on, not only the
 * settled part a live feed's history has: any open transaction in the cluster holds settled
 * events back, so a turn the worker already knows could look absent there. Live delivery
 * starts before that read, so what both deliver is kept once (by stream position).
 */
export class SessionWatch {
  private seen: Recorded<HubEvent>[] = [];
  private readonly held = new Set<number>();
  private readonly waiters = new Set<() => void>();

  private constructor(private feed?: SessionFeed) {}

  static async open(streams: SessionStreams, store: EventStore, tenantId: string, sessionId: string): Promise<SessionWatch> {
    const watch = new SessionWatch();
    watch.feed = await streams.open(tenantId, sessionId, (batch) => watch.add(batch), { history: false });
    try {
      const { events } = await store.readStream<HubEvent>(tenantId, sessionStreamId(sessionId));
      watch.seed(events);
    } catch (e) {
      await watch.close();
      throw e;
    }
    return watch;
  }

  get events(): readonly Recorded<HubEvent>[] {
    return this.seen;
  }

  /** Resolves true once `check` holds, false if `budgetMs` runs out first. */
  until(check: () => boolean, budgetMs: number): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    if (budgetMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(check());
      }, budgetMs);
      this.waiters.add(waiter);
    });
  }

  close(): Promise<void> {
    return this.feed?.close() ?? Promise.resolve();
  }

  /** The committed events go first; live ones that arrived during the read follow, less repeats. */
  private seed(committed: Recorded<HubEvent>[]): void {
    const early = this.seen;
    this.seen = [];
    this.held.clear();
    this.add(committed);
    this.add(early);
  }

  private add(batch: Recorded<HubEvent>[]): void {
    for (const e of batch) {
      if (this.held.has(e.streamPosition)) continue;
      this.held.add(e.streamPosition);
      this.seen.push(e);
    }
    for (const waiter of [...this.waiters]) waiter();
  }
}
