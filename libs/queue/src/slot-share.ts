import type { EventEmitter } from 'node:events';
import { DelayedError, WaitingError, type Job, type Queue } from 'bullmq';

export interface SlotShareOptions {
  /** Jobs the worker runs at once (`HUB_WORKER_CONCURRENCY`). */
  slots: number;
  /**
   * Slots beyond `slots` that a tenant below its share of this worker may borrow at once while
   * others' jobs drain (`HUB_WORKER_BURST_SLOTS`). 0: off (a tenant waits for a slot to free).
   */
  burst: number;
  tenantOf(job: Job): string;
  /** How often the waiting jobs are looked at while jobs are held (default 50 ms). */
  pollMs?: number;
  /** A held job goes back to the queue after this long, for an idle worker elsewhere (default 1 s). */
  holdMs?: number;
  /**
   * Told when this process adds a job to the queue (a worker schedules the turns its commands
   * start): the waiting jobs are looked at at once instead of at the next tick.
   */
  added?: EventEmitter;
}

interface Held {
  job: Job;
  tenant: string;
  priority: number;
  resolve(verdict: 'entered' | 'yield' | 'delay'): void;
}

/** How many waiting jobs a look goes through for one of a tenant below its share. */
const LOOK_AHEAD = 10;
/** How long a job moved to the front for a borrowing tenant counts as on its way here. */
const PROMISE_MS = 2_000;

/**
 * Slots shared between tenants on one worker, for a queue whose jobs cannot be preempted (a turn
 * holds its slot until it ends). Fair-share priorities decide which job is next; they cannot make
 * a slot free. With tenant A's turns in every slot, tenant B's new turn waited for one of A's to
 * end, and A's turns started together end together (ADR 0013: B's p50 was 1.1-2.1x of B alone).
 *
 * So the worker fetches `burst` jobs beyond its `slots`, and runs a job when fewer than `slots`
 * run, or when its tenant runs fewer than its share (`slots` / the tenants running here) and
 * fewer than `slots + burst` run in all: a tenant arriving beside a busy one starts at once in a
 * borrowed slot, and the busy one pays the slots back (its next jobs wait while more than
 * `slots` run). A job that may not run yet is held in its fetch slot (its lock renewed) and runs
 * as soon as it may, in priority order. While jobs are held, the head of the queue is looked at
 * every `pollMs`: a waiting job whose tenant may borrow is moved to the front and a held job of
 * another tenant gives its fetch slot back (BullMQ's moveToWait keeps its place), so the freed
 * slot fetches it. A tenant alone keeps every slot; nothing is preempted.
 */
export class SlotShare {
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly held = new Set<Held>();
  /** Jobs moved to the front for a borrowing tenant, not arrived yet: counted as running. */
  private readonly incoming = new Map<string, { tenant: string; at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;
  private closing = false;

  private readonly onAdded = () => {
    if (this.held.size > 0) setImmediate(() => void this.look());
  };

  constructor(
    private readonly queue: Queue,
    private readonly opts: SlotShareOptions,
  ) {
    opts.added?.on(queue.name, this.onAdded);
  }

  /** The BullMQ concurrency to give the worker: its slots and the borrowable ones. */
  get fetchSlots(): number {
    return this.opts.slots + this.opts.burst;
  }

  /** Runs `work` for `job` once it may run here; or gives the job back to the queue (BullMQ's WaitingError/DelayedError). */
  async run<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    const tenant = this.opts.tenantOf(job);
    this.incoming.delete(String(job.id));
    if (this.mayRun(tenant)) this.enter(tenant);
    else {
      const verdict = await this.hold(job, tenant);
      if (verdict === 'yield') {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (verdict === 'delay') {
        // Through the delayed set, whose marker wakes idle workers: one of them may run it now.
        await job.moveToDelayed(Date.now() + 1, token);
        throw new DelayedError();
      }
    }
    try {
      return await work();
    } finally {
      this.leave(tenant);
    }
  }

  /** Gives every held job back to the queue (the worker is closing: it must not wait for them). */
  close(): void {
    this.closing = true;
    this.opts.added?.off(this.queue.name, this.onAdded);
    for (const h of this.held) h.resolve('yield');
    this.held.clear();
    this.stopLooking();
  }

  private mine(tenant: string): number {
    let n = this.running.get(tenant) ?? 0;
    for (const i of this.incoming.values()) if (i.tenant === tenant) n++;
    return n;
  }

  private mayRun(tenant: string): boolean {
    const total = this.total + this.incoming.size;
    if (total < this.opts.slots) return true;
    if (total >= this.opts.slots + this.opts.burst) return false;
    const tenants = new Set([...this.running.keys(), tenant]).size;
    return this.mine(tenant) < Math.max(1, Math.floor(this.opts.slots / tenants));
  }

  private enter(tenant: string): void {
    this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
    this.total++;
  }

  private leave(tenant: string): void {
    const n = (this.running.get(tenant) ?? 1) - 1;
    if (n > 0) this.running.set(tenant, n);
    else this.running.delete(tenant);
    this.total--;
    this.wake();
  }

  private hold(job: Job, tenant: string): Promise<'entered' | 'yield' | 'delay'> {
    if (this.closing) return Promise.resolve('yield');
    return new Promise((resolve) => {
      const h: Held = { job, tenant, priority: job.opts.priority ?? Number.MAX_SAFE_INTEGER, resolve };
      this.held.add(h);
      const timeout = setTimeout(() => this.release(h, 'delay'), this.opts.holdMs ?? 1_000);
      h.resolve = (v) => {
        clearTimeout(timeout);
        resolve(v);
      };
      this.timer ??= setInterval(() => void this.look(), this.opts.pollMs ?? 50);
    });
  }

  private release(h: Held, verdict: 'entered' | 'yield' | 'delay'): void {
    if (!this.held.delete(h)) return;
    if (verdict === 'entered') this.enter(h.tenant);
    h.resolve(verdict);
    if (this.held.size === 0) this.stopLooking();
  }

  /** Held jobs that may run now, in priority order (a tenant's own jobs keep their order). */
  private wake(): void {
    for (const h of [...this.held].sort((a, b) => a.priority - b.priority)) if (this.mayRun(h.tenant)) this.release(h, 'entered');
  }

  /** A waiting job of a tenant that may borrow goes to the front; a held job of another tenant makes room for it. */
  private async look(): Promise<void> {
    if (this.looking || this.held.size === 0) return;
    this.looking = true;
    try {
      const now = Date.now();
      for (const [id, i] of this.incoming) if (now - i.at > PROMISE_MS) this.incoming.delete(id);
      const heldTenants = new Set([...this.held].map((h) => h.tenant));
      for (const job of await this.queue.getPrioritized(0, LOOK_AHEAD - 1)) {
        const tenant = this.opts.tenantOf(job);
        if (heldTenants.has(tenant) || this.incoming.has(String(job.id)) || !this.mayRun(tenant)) continue;
        const victim = [...this.held].filter((h) => h.tenant !== tenant).sort((a, b) => b.priority - a.priority)[0];
        if (!victim) break;
        await job.changePriority({ priority: 1, lifo: true });
        this.incoming.set(String(job.id), { tenant, at: now });
        this.release(victim, 'yield');
      }
    } catch {
      // A look that failed (Redis away) is tried again at the next tick; held jobs still run in time.
    } finally {
      this.looking = false;
    }
  }

  private stopLooking(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
