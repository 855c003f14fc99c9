import { SESSION_VIEW_VERSION, decodeSessionView, encodeSessionView, foldSessionView, initialSessionView, type HubEvent, type Recorded, type SessionView } from '@hub/domain';

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
  constructor(
    private readonly log: StreamReader,
    private readonly snapshots: ViewSnapshots | null,
    readonly every: number,
  ) {}

  async load(tenantId: string, streamId: string, part: 'all' | 'decision' = 'all'): Promise<LoadedView> {
    let snap = this.snapshots ? await this.snapshots.read(tenantId, streamId, SESSION_VIEW_VERSION, part) : null;
    const from = snap?.version ?? 0;
    const { version, events } = await this.log.readStream(tenantId, streamId, { fromVersion: from });
    const tail = events.filter((e) => e.streamPosition > from);
    let whole = part === 'all' || !snap;
    // A decision never needs the conversation, but a due snapshot does: read it whole then.
    if (!whole && this.snapshots && tail.length >= this.every) {
      const all = await this.snapshots.read(tenantId, streamId, SESSION_VIEW_VERSION, 'all');
      if (all?.version !== from) return this.load(tenantId, streamId, 'all'); // replaced meanwhile
      snap = all;
      whole = true;
    }
    const view = foldSessionView(tail, snap ? decodeSessionView(snap.state) : initialSessionView());
    const loaded = { version, view, tail, sinceSnapshot: tail.length, whole };
    await this.saveIfDue(tenantId, streamId, loaded);
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
