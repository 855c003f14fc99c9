import type { Recorded } from '@hub/domain';
import type { Pool } from 'pg';
import { ListenConnection } from './listen-connection';
import { explainConnectError } from './pg-errors';
import { readHead, readRange, readTail } from './subscriber-queries';
import { checkIds } from './ids';
import type { StoredEvent } from './types';

/** Which events a subscription receives: one tenant's, optionally one stream's, after a cursor. */
export interface SubscribeFilter {
  tenantId: string;
  streamId?: string;
  /** Global position already seen (exclusive); 0 for everything. */
  after: number;
}

export type EventsHandler = (events: Recorded<StoredEvent>[]) => Promise<void> | void;

export interface Subscription {
  /** No delivery starts after this resolves; an `onEvents` call in progress is not awaited. */
  close(): Promise<void>;
}

export interface SubscriberOptions {
  /** For the dedicated LISTEN connection; defaults to the pool's connection string. */
  connectionString?: string;
  /** Safety poll, in case a NOTIFY is lost. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Rows per query. Default 500. */
  pageSize?: number;
  log?: (message: string, error?: unknown) => void;
}

interface Sub {
  filter: SubscribeFilter;
  onEvents: EventsHandler;
  onError?: (error: unknown) => void;
  /**
   * Every matching event at or below this position has been handed to `onEvents`' queue. Once
   * the subscription is live (in the index) the shared tail stands for it, and this stays where
   * it was then: a wake must not touch every subscription.
   */
  cursor: number;
  closed: boolean;
  queue: Promise<void>;
}

const MAX_BACKOFF_MS = 1000;

/**
 * Live, gap-free delivery of settled events, one instance per process. A single LISTEN
 * connection wakes one shared tail read per wake-up for all subscriptions (cost per commit is one
 * query, whatever the number of subscribers); a subscription behind that tail catches up with
 * its own tenant/stream-scoped queries first. Each subscription gets its events exactly once,
 * in global order, and never past a writer that has not committed.
 */
export class EventSubscriber {
  private readonly subs = new Set<Sub>();
  /** Subscriptions not yet caught up to the shared tail (new ones start here): each reads its own range. */
  private readonly lagging = new Set<Sub>();
  /** Caught-up subscriptions by tenant and stream, so a wake costs the page plus the subscriptions it matches. */
  private readonly live = new SubscriptionIndex();
  /** Subscriptions per tenant: the tenants the shared tail read is scoped to. */
  private readonly tenants = new Map<string, number>();
  /**
   * A settled position of each subscribed tenant at or below its head, raised by every tick to
   * the tenant's last event in the page: what {@link headPosition} answers without a query.
   */
  private readonly heads = new Map<string, number>();
  private readonly pageSize: number;
  private readonly log: (message: string, error?: unknown) => void;
  private readonly listen: ListenConnection;
  private tail: number | undefined;
  private started: Promise<void> | undefined;
  private running = false;
  private dirty = false;
  private closed = false;
  private backoffMs = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly pollTimer: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    options: SubscriberOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 500;
    this.log = options.log ?? (() => undefined);
    const connectionString = options.connectionString ?? pool.options.connectionString;
    if (!connectionString) throw new Error('EventSubscriber needs a connection string for LISTEN');
    this.listen = new ListenConnection(connectionString, () => this.wake(), this.log);
    this.pollTimer = setInterval(() => this.wake(), options.pollIntervalMs ?? 1000);
    this.pollTimer.unref();
  }

  /** Connects the LISTEN connection and fixes the starting tail; rejects if Postgres is unreachable. */
  start(): Promise<void> {
    this.started ??= this.listen
      .connect()
      .then(async () => {
        this.tail = (await readTail(this.pool, [], 0, 1)).settledHead;
        this.wake();
      })
      .catch((e: unknown) => {
        this.started = undefined;
        throw explainConnectError(e, this.listen.connectionString);
      });
    return this.started;
  }

  /** Delivers every settled event matching `filter` after `filter.after`, batch by batch. */
  subscribe(filter: SubscribeFilter, onEvents: EventsHandler, onError?: (error: unknown) => void): Subscription {
    if (this.closed) throw new Error('EventSubscriber is closed');
    checkIds(filter.tenantId, filter.streamId);
    const sub: Sub = { filter, onEvents, onError, cursor: filter.after, closed: false, queue: Promise.resolve() };
    this.subs.add(sub);
    this.lagging.add(sub);
    this.tenants.set(filter.tenantId, (this.tenants.get(filter.tenantId) ?? 0) + 1);
    this.start().catch((e: unknown) => this.scheduleRetry(e));
    // Behind the shared tail, it has a range to catch up on: at once. At or ahead of it (a feed
    // that read its history up to the head, as every socket's does) nothing is missed by waiting
    // for the next commit's wake, which joins it first: no tail read per subscription opened.
    if (this.tail === undefined || filter.after < this.tail) this.wake();
    return { close: async () => this.remove(sub) };
  }

  /**
   * A settled global position of the tenant at or below its head (0 if none): where a new feed
   * can split history from live events. For a tenant this process already follows it is what
   * the shared tail has seen (no query: a thousand sockets opening at once were a thousand
   * backward scans past every unsettled row, and held the pool); otherwise it is read. It may be
   * behind the log by a tick, which only makes the feed catch up from it; a client's cursor past it
   * must be checked against the log itself (`EventStore.headPosition`).
   */
  async headPosition(tenantId: string): Promise<number> {
    checkIds(tenantId);
    const known = this.heads.get(tenantId);
    if (known !== undefined) return known;
    const head = await readHead(this.pool, tenantId);
    // Followed from now on while it has subscriptions: every tick's page holds its events.
    if (this.tenants.has(tenantId)) this.heads.set(tenantId, Math.max(head, this.heads.get(tenantId) ?? 0));
    return head;
  }

  /** Stops delivery and the LISTEN connection, and waits for handlers already running. The pool is the caller's to end. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.retryTimer);
    for (const sub of this.subs) sub.closed = true;
    const queues = [...this.subs].map((s) => s.queue);
    this.subs.clear();
    this.lagging.clear();
    this.live.clear();
    this.tenants.clear();
    this.heads.clear();
    await this.listen.close();
    await Promise.all(queues);
  }

  private wake(): void {
    this.dirty = true;
    if (!this.running && !this.closed && this.tail !== undefined) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        const { more, unsettled } = await this.tick();
        if (more) this.dirty = true;
        else if (unsettled) this.scheduleRetry();
        else this.backoffMs = 0;
      }
    } catch (e) {
      this.scheduleRetry(e);
    } finally {
      this.running = false;
    }
  }

  /** A writer is still open (or the database failed): look again soon, backing off to 1 s. */
  private scheduleRetry(error?: unknown): void {
    if (error !== undefined) this.log('event subscriber: read failed, retrying', error);
    if (this.closed || this.retryTimer) return;
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 10), MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.tail === undefined) this.start().catch((e: unknown) => this.scheduleRetry(e));
      else this.wake();
    }, this.backoffMs);
  }

  private async tick(): Promise<{ more: boolean; unsettled: boolean }> {
    const tail = this.tail ?? 0;
    // Taken together, before any await: a subscription added while this tick reads was not in
    // the tenants the page was read for, so it waits in `lagging` for the next tick.
    const tenants = [...this.tenants.keys()];
    const joining = [...this.lagging];
    const page = await readTail(this.pool, tenants, tail, this.pageSize);
    const full = page.events.length === this.pageSize;
    const newTail = full ? page.events[page.events.length - 1].globalPosition : Math.max(tail, page.settledHead);
    const stillLagging = await Promise.all(joining.filter((s) => s.cursor < tail).map((s) => this.catchUp(s, tail)));
    for (const sub of joining) {
      if (sub.closed || sub.cursor < tail) continue;
      this.lagging.delete(sub);
      this.live.add(sub);
    }
    // The page holds only events after the tail, which every live subscription has seen up to
    // (or past: its own cursor, when it subscribed ahead of the tail).
    const batches = new Map<Sub, Recorded<StoredEvent>[]>();
    for (const e of page.events) {
      this.live.forEachMatch(e, (sub) => {
        if (sub.closed || e.globalPosition <= sub.cursor) return;
        const batch = batches.get(sub);
        if (batch) batch.push(e);
        else batches.set(sub, [e]);
      });
    }
    for (const [sub, events] of batches) this.deliver(sub, events);
    this.raiseHeads(page.events);
    this.tail = newTail;
    return { more: full || stillLagging.some(Boolean), unsettled: page.visibleHead > newTail };
  }

  private remove(sub: Sub): void {
    sub.closed = true;
    if (!this.subs.delete(sub)) return;
    this.lagging.delete(sub);
    this.live.delete(sub);
    const left = (this.tenants.get(sub.filter.tenantId) ?? 1) - 1;
    if (left > 0) this.tenants.set(sub.filter.tenantId, left);
    else {
      // No longer in the tail's pages: its head would go stale.
      this.tenants.delete(sub.filter.tenantId);
      this.heads.delete(sub.filter.tenantId);
    }
  }

  /** Raises the kept head of each followed tenant to its last settled event in `events`. */
  private raiseHeads(events: readonly Recorded<StoredEvent>[]): void {
    for (const e of events) {
      const head = this.heads.get(e.tenantId);
      if (head !== undefined && e.globalPosition > head) this.heads.set(e.tenantId, e.globalPosition);
    }
  }

  /** Reads a subscription up to the shared tail; true if it is still behind afterwards. */
  private async catchUp(sub: Sub, tail: number): Promise<boolean> {
    const events = await readRange(this.pool, sub.filter, sub.cursor, tail, this.pageSize);
    if (sub.closed) return false;
    this.deliver(sub, events);
    // A tick that read the tail before this tenant was followed passed its events by: what is
    // caught up here raises its head too.
    this.raiseHeads(events);
    const full = events.length === this.pageSize;
    sub.cursor = full ? events[events.length - 1].globalPosition : tail;
    return full;
  }

  /** Queues a batch behind the subscription's previous ones, so a slow handler delays only itself. */
  private deliver(sub: Sub, events: Recorded<StoredEvent>[]): void {
    if (events.length === 0) return;
    sub.queue = sub.queue.then(async () => {
      if (sub.closed) return;
      try {
        await sub.onEvents(events);
      } catch (e) {
        // A failed handler ends its subscription: redelivering would break exactly-once and
        // skipping would break no-gaps. The owner resubscribes from its own cursor.
        this.remove(sub);
        if (sub.onError) sub.onError(e);
        else this.log('event subscriber: handler failed, subscription closed', e);
      }
    });
  }
}

/** Live subscriptions keyed by tenant, then stream (or the tenant's every stream). */
class SubscriptionIndex {
  private readonly byTenant = new Map<string, { anyStream: Set<Sub>; byStream: Map<string, Set<Sub>> }>();

  add(sub: Sub): void {
    const { tenantId, streamId } = sub.filter;
    let t = this.byTenant.get(tenantId);
    if (!t) this.byTenant.set(tenantId, (t = { anyStream: new Set(), byStream: new Map() }));
    if (streamId === undefined) return void t.anyStream.add(sub);
    let s = t.byStream.get(streamId);
    if (!s) t.byStream.set(streamId, (s = new Set()));
    s.add(sub);
  }

  delete(sub: Sub): void {
    const { tenantId, streamId } = sub.filter;
    const t = this.byTenant.get(tenantId);
    if (!t) return;
    if (streamId === undefined) t.anyStream.delete(sub);
    else {
      const s = t.byStream.get(streamId);
      s?.delete(sub);
      if (s?.size === 0) t.byStream.delete(streamId);
    }
    if (t.anyStream.size === 0 && t.byStream.size === 0) this.byTenant.delete(tenantId);
  }

  /** Calls `fn` for each live subscription `e` matches. */
  forEachMatch(e: Recorded<StoredEvent>, fn: (sub: Sub) => void): void {
    const t = this.byTenant.get(e.tenantId);
    if (!t) return;
    t.anyStream.forEach(fn);
    t.byStream.get(e.streamId)?.forEach(fn);
  }

  clear(): void {
    this.byTenant.clear();
  }
}
