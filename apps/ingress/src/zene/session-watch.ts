import type { HubEvent, Recorded } from '@hub/domain';
import type { SessionFeed, SessionStreams } from '../streams/session-streams.service';

/**
 * One session's events, history then live, kept in order for as long as a zene request needs
 * them. Opened before the turn is submitted, so nothing the turn appends can be missed.
 */
export class SessionWatch {
  readonly events: Recorded<HubEvent>[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(private feed?: SessionFeed) {}

  static async open(streams: SessionStreams, tenantId: string, sessionId: string): Promise<SessionWatch> {
    const watch = new SessionWatch();
    const feed = await streams.open(tenantId, sessionId, (batch) => watch.add(batch));
    watch.feed = feed;
    watch.events.unshift(...feed.history);
    return watch;
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

  private add(batch: Recorded<HubEvent>[]): void {
    this.events.push(...batch);
    for (const waiter of [...this.waiters]) waiter();
  }
}
