import type { AdapterOptions, HarnessAdapter } from './adapter';
import { AcpHarnessAdapter } from './acp-adapter';
import { CommandHarnessAdapter } from './command-adapter';
import { sameHarness, type ExternalHarnessSpec } from './harness-spec';

/** Makes the adapter of a spec's kind (tests may put their own factory in). */
export type AdapterFactory = (spec: ExternalHarnessSpec) => HarnessAdapter;

export const defaultAdapterFactory =
  (opts: AdapterOptions): AdapterFactory =>
  (spec) =>
    spec.kind === 'acp' ? new AcpHarnessAdapter(spec, opts) : new CommandHarnessAdapter(spec, opts);

interface Entry {
  spec: ExternalHarnessSpec;
  /** Resolves once started; a failed start removes the entry. */
  ready: Promise<HarnessAdapter>;
  adapter?: HarnessAdapter;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

/**
 * The harness processes of one worker, one per tenant + session: a session's turns reuse its
 * process (the harness keeps the conversation), a process idle for `session_timeout_s` is
 * stopped, one that exits on its own is forgotten, and `stopAll` (worker shutdown) stops every
 * one and waits until each is gone.
 */
export class HarnessProcesses {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly factory: AdapterFactory) {}

  /**
   * The session's process, started if needed (`fresh`: it has seen none of the session's
   * earlier turns). Marked busy until `release`: an idle timer never stops a running turn.
   */
  async acquire(tenantId: string, sessionId: string, spec: ExternalHarnessSpec): Promise<{ adapter: HarnessAdapter; fresh: boolean }> {
    const key = keyOf(tenantId, sessionId);
    const existing = this.entries.get(key);
    if (existing && sameHarness(existing.spec, spec) && (!existing.adapter || existing.adapter.isAlive())) {
      clearTimeout(existing.idleTimer);
      existing.busy = true;
      return { adapter: await existing.ready, fresh: false };
    }
    if (existing) await this.stopKey(key);
    const adapter = this.factory(spec);
    const entry: Entry = { spec, busy: true, ready: adapter.start().then(() => adapter) };
    this.entries.set(key, entry);
    try {
      entry.adapter = await entry.ready;
    } catch (e) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw e;
    }
    void adapter.exited.then(() => {
      if (this.entries.get(key) === entry) {
        clearTimeout(entry.idleTimer);
        this.entries.delete(key);
      }
    });
    return { adapter, fresh: true };
  }

  /** The turn is over; the process stays for the session's next turn until it idles out. */
  release(tenantId: string, sessionId: string): void {
    const key = keyOf(tenantId, sessionId);
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.busy = false;
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      if (!entry.busy && this.entries.get(key) === entry) void this.stopKey(key);
    }, entry.spec.session_timeout_s * 1000);
    entry.idleTimer.unref();
  }

  /** Whether this worker holds a live process for the session. */
  holds(tenantId: string, sessionId: string): boolean {
    const entry = this.entries.get(keyOf(tenantId, sessionId));
    return entry?.adapter?.isAlive() ?? false;
  }

  /** Stops the session's process (episode reset, crash, timeout) and waits until it is gone. */
  stop(tenantId: string, sessionId: string): Promise<void> {
    return this.stopKey(keyOf(tenantId, sessionId));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((k) => this.stopKey(k)));
  }

  get size(): number {
    return this.entries.size;
  }

  private async stopKey(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    clearTimeout(entry.idleTimer);
    const adapter = await entry.ready.catch(() => null);
    await adapter?.stop();
  }
}

const keyOf = (tenantId: string, sessionId: string) => `${tenantId}\u0000${sessionId}`;
