import {
  SESSION_VIEW_VERSION,
  decodeSessionView,
  encodeSessionView,
  foldSessionView,
  initialSessionView,
  type HubEvent,
  type Recorded,
  type SessionView,
} from '@hub/domain';

/** Reads of a session's stream after a version (all when omitted), with the stream's version. */
export interface StreamReader {
  readStream(tenantId: string, streamId: string, opts?: { fromVersion?: number }): Promise<{ version: number; events: Recorded<HubEvent>[] }>;
}

/**
 * Where session views are kept (the real one is `SnapshotStore` of @hub/event-store). `part`
 * `decision` asks only for what a command decision needs (the decider state and open turns),
 * which stays small however long the conversation grows.
 */
export interface ViewSnapshots {
  read(tenantId: string, streamId: string, foldVersion: number, part?: 'all' | 'decision'): Promise<{ version: number; state: string } | null>;
  /** `read`, and the stream's events after the snapshot with its version, as one read (when the store can). */
  readWithTail?(
    tenantId: string,
    streamId: string,
    foldVersion: number,
    part?: 'all' | 'decision',
  ): Promise<{ snapshot: { version: number; state: string } | null; version: number; events: Recorded<HubEvent>[] }>;
  write(tenantId: string, streamId: string, snapshot: { version: number; foldVersion: number; state: string }): Promise<void>;
}

/** A session as of `version`: its view (with the tail folded in), and the tail read after the snapshot. */
export interface LoadedView {
  version: number;
  view: SessionView;
  tail: Recorded<HubEvent>[];
  /** Events after the stored snapshot (the tail's length): when it reaches `every`, a new one is due. */
  sinceSnapshot: number;
  /** Whether `view` is whole (it may be saved) or only the decision part. */
  whole: boolean;
}

/**
 * Loads a session as its snapshot plus the events after it, so the cost of a read does not grow
 * with the session's length, and keeps the snapshot fresh: once `every` events follow it, the
 * caller saves a new one (after its own append, outside any transaction). A snapshot of another
 * fold version is not read; the first load rebuilds and replaces it.
 */
export class SessionViews {
  /**
   * What this process last had of each recently used session (least recently used first), so
   * the next load reads only the events after it, not even the snapshot: the decision part as
   * JSON (small, decoded per use), and the whole view itself, lent to one user at a time.
   * Correct because the log is append-only, so a view at version V plus the events after V is
   * the session, whoever appended them. The one exception, erasure, is broadcast to every worker
   * (`forget`), and a stream found shorter than what was kept is read again from the store.
   */
  private readonly recent = new Map<string, { decision: Kept<string> | null; whole: Kept<SessionView> | null }>();

  constructor(
    private readonly log: StreamReader,
    private readonly snapshots: ViewSnapshots | null,
    readonly every: number,
    private readonly keepRecent = 64,
  ) {}

  async load(tenantId: string, streamId: string, part: 'all' | 'decision' = 'all'): Promise<LoadedView> {
    const hit = this.recent.get(key(tenantId, streamId));
    if (part === 'all' && hit?.whole) {
      const { version, sinceSnapshot, value } = hit.whole;
      hit.whole = null;
      const loaded = await this.foldTail(tenantId, streamId, version, value, sinceSnapshot, true);
      if (!loaded) return this.reloadErased(tenantId, streamId, part);
      return this.settle(tenantId, streamId, loaded);
    }
    if (part === 'decision' && hit?.decision) {
      const { version, sinceSnapshot, value } = hit.decision;
      const loaded = await this.foldTail(tenantId, streamId, version, decodeSessionView(value), sinceSnapshot, false);
      if (!loaded) return this.reloadErased(tenantId, streamId, part);
      // A decision never needs the conversation, but a due snapshot does: read it whole then.
      if (loaded.sinceSnapshot >= this.every) return this.loadStored(tenantId, streamId, 'all');
      return this.settle(tenantId, streamId, loaded);
    }
    return this.loadStored(tenantId, streamId, part);
  }

  /**
   * Keeps a view a caller folded on (its own appends included) for the next load in this
   * process: its decision part, and the view itself when it is whole (the caller lets go of it).
   */
  keep(tenantId: string, streamId: string, at: Pick<LoadedView, 'version' | 'view' | 'sinceSnapshot' | 'whole'>): void {
    // Without snapshots every load is a whole read (tests and tools that want the whole stream).
    if (!this.snapshots || at.view.session.status === 'new') return;
    const k = key(tenantId, streamId);
    const known = this.recent.get(k) ?? { decision: null, whole: null };
    this.recent.delete(k);
    const { version, sinceSnapshot } = at;
    if (!known.decision || known.decision.version <= version) {
      const { session, open, startCount } = at.view;
      known.decision = { version, sinceSnapshot, value: encodeSessionView({ session, open, startCount, history: [], fileEvents: [] }) };
    }
    if (at.whole && (!known.whole || known.whole.version <= version)) known.whole = { version, sinceSnapshot, value: at.view };
    this.recent.set(k, known);
    for (const old of this.recent.keys()) {
      if (this.recent.size <= this.keepRecent) break;
      this.recent.delete(old);
    }
  }

  private reloadErased(tenantId: string, streamId: string, part: 'all' | 'decision'): Promise<LoadedView> {
    this.forget(tenantId, streamId);
    return this.loadStored(tenantId, streamId, part);
  }

  /** The stored snapshot and the events after it: one read where the store can, else two. */
  private async readStored(tenantId: string, streamId: string, part: 'all' | 'decision') {
    if (this.snapshots?.readWithTail) return this.snapshots.readWithTail(tenantId, streamId, SESSION_VIEW_VERSION, part);
    const snapshot = this.snapshots ? await this.snapshots.read(tenantId, streamId, SESSION_VIEW_VERSION, part) : null;
    return { snapshot, ...(await this.log.readStream(tenantId, streamId, { fromVersion: snapshot?.version ?? 0 })) };
  }

  private async loadStored(tenantId: string, streamId: string, part: 'all' | 'decision'): Promise<LoadedView> {
    const stored = await this.readStored(tenantId, streamId, part);
    let snap = stored.snapshot;
    const from = snap?.version ?? 0;
    const { version, events } = stored;
    const tail = events.filter((e) => e.streamPosition > from);
    let whole = part === 'all' || !snap;
    // A decision never needs the conversation, but a due snapshot does: read it whole then.
    if (!whole && this.snapshots && tail.length >= this.every) {
      const all = await this.snapshots.read(tenantId, streamId, SESSION_VIEW_VERSION, 'all');
      if (all?.version !== from) return this.loadStored(tenantId, streamId, 'all'); // replaced meanwhile
      snap = all;
      whole = true;
    }
    const view = foldSessionView(tail, snap ? decodeSessionView(snap.state) : initialSessionView());
    return this.settle(tenantId, streamId, { version, view, tail, sinceSnapshot: tail.length, whole });
  }

  /** Drops what this process kept of a session (it was erased: its id may start again from nothing). */
  forget(tenantId: string, streamId: string): void {
    this.recent.delete(key(tenantId, streamId));
  }

  private async foldTail(tenantId: string, streamId: string, from: number, view: SessionView, since: number, whole: boolean): Promise<LoadedView | null> {
    const { version, events } = await this.log.readStream(tenantId, streamId, { fromVersion: from });
    // Shorter than what was kept: the session was erased (and maybe opened again) since.
    if (version < from) return null;
    const tail = events.filter((e) => e.streamPosition > from);
    return { version: Math.max(version, from), view: foldSessionView(tail, view), tail, sinceSnapshot: since + tail.length, whole };
  }

  private async settle(tenantId: string, streamId: string, loaded: LoadedView): Promise<LoadedView> {
    await this.saveIfDue(tenantId, streamId, loaded);
    // A whole view goes to its caller, who may keep it back when done; its decision part is a copy.
    this.keep(tenantId, streamId, { ...loaded, whole: false });
    return loaded;
  }

  /** Saves a whole view whose snapshot is due; best effort (a failed save only leaves a longer tail). */
  async saveIfDue(tenantId: string, streamId: string, at: { version: number; view: SessionView; sinceSnapshot: number; whole: boolean }): Promise<boolean> {
    if (!this.snapshots || !at.whole || at.sinceSnapshot < this.every || at.view.session.status === 'new') return false;
    await this.save(tenantId, streamId, at.version, at.view);
    at.sinceSnapshot = 0;
    return true;
  }

  async save(tenantId: string, streamId: string, version: number, view: SessionView): Promise<void> {
    await this.snapshots?.write(tenantId, streamId, { version, foldVersion: SESSION_VIEW_VERSION, state: encodeSessionView(view) });
  }
}

const key = (tenantId: string, streamId: string) => `${tenantId}|${streamId}`;

/** A kept view (or its decision part) at `version`, with the events since the stored snapshot. */
interface Kept<T> {
  version: number;
  sinceSnapshot: number;
  value: T;
}
