import type { Pool } from 'pg';
import { SESSION_VIEW_VERSION, encodeSessionView, foldSessionView, sessionStreamId, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore, SnapshotStore, asSystem, asTenant } from '@hub/event-store';
import { foldBatch, groupsOf, keyedBySession, readsOf } from './apply-batch';
import type { ProjectedEvent, ProjectionDef, Row } from './projection';
import { loadGroups, readCheckpoint } from './store';
import { waitProjected } from './wait-projected';

/** One field that differs between what is stored and what the log folds to. */
export interface ReplayDifference {
  tenantId: string;
  sessionId: string;
  /** `session_snapshot`, or a read model's name (`sessions`, `turns`, `approvals`). */
  model: string;
  /** The row's primary key values, or the snapshot's version. */
  key: string;
  field: string;
  stored: unknown;
  replayed: unknown;
}

export interface ReplayOptions {
  /** How long to wait for a read model's checkpoint to pass the session's last event. */
  waitMs?: number;
  /** A read model still behind after `waitMs` is left out instead of reported (no projector running). */
  skipLagging?: boolean;
  /** Told of each read model left out that way, so a caller can say how much was not compared. */
  onLagging?: (model: string) => void;
}

/**
 * Replay that proves itself (issue 15): folds the session's log again, in memory, into every
 * projection kept of it — the session view its snapshot stores, and each read model's rows — and
 * compares field by field with what is stored. No difference means the stored state is exactly
 * what the log says; any difference is reported with the model, the row and the field.
 */
export async function replaySession(
  pool: Pool,
  projections: readonly ProjectionDef[],
  tenantId: string,
  sessionId: string,
  o: ReplayOptions = {},
): Promise<ReplayDifference[]> {
  // A session still being written (a turn that runs on) can move between the read of its
  // events and the read of its rows: rows one event ahead of the replay are that race, not a
  // difference. Compared again from a fresh read while the stream keeps moving, a few times.
  const store = new EventStore(pool);
  const streamId = sessionStreamId(sessionId);
  for (let attempt = 1; ; attempt++) {
    const before = await store.streamVersion(tenantId, streamId);
    const diffs = await replayOnce(pool, projections, tenantId, sessionId, o);
    if (diffs.length === 0 || attempt >= MAX_REPLAY_ATTEMPTS || (await store.streamVersion(tenantId, streamId)) === before) return diffs;
  }
}

/** Comparisons of a session that kept moving while it was compared, before its differences count. */
const MAX_REPLAY_ATTEMPTS = 5;

async function replayOnce(
  pool: Pool,
  projections: readonly ProjectionDef[],
  tenantId: string,
  sessionId: string,
  o: ReplayOptions,
): Promise<ReplayDifference[]> {
  const streamId = sessionStreamId(sessionId);
  const { events } = await new EventStore(pool).readStream<HubEvent>(tenantId, streamId);
  if (events.length === 0) return [];
  const recorded = events as Recorded<HubEvent>[];
  const diffs: ReplayDifference[] = [];
  const note = (model: string, key: string, field: string, stored: unknown, replayed: unknown) =>
    diffs.push({ tenantId, sessionId, model, key, field, stored, replayed });

  // The session view's snapshot, against the fold of the events up to its version.
  const snapshot = await new SnapshotStore(pool).read(tenantId, streamId, SESSION_VIEW_VERSION);
  if (snapshot) {
    const replayed = JSON.parse(encodeSessionView(foldSessionView(recorded.filter((e) => e.streamPosition <= snapshot.version)))) as unknown;
    compare(JSON.parse(snapshot.state) as unknown, replayed, '', (field, s, r) => note('session_snapshot', `version ${snapshot.version}`, field, s, r));
  }

  // Each read model: its rows for this session's groups, folded from the session's events alone.
  const last = recorded[recorded.length - 1]?.globalPosition ?? 0;
  for (const def of projections) {
    // Exactly what the live runner hands the fold: data and metadata only of the types it reads
    // (apply-batch.ts), so a fold that looks at an unread event's metadata folds the same here.
    const reads = new Set(readsOf(def));
    const projected: ProjectedEvent[] = recorded.map((e) => ({
      type: e.type,
      data: reads.has(e.type) ? e.data : null,
      metadata: reads.has(e.type) ? e.metadata : null,
      tenantId,
      streamId,
      globalPosition: e.globalPosition,
      createdAt: e.createdAt,
    }));
    // Until the read model has applied this session's last event (no wait when nothing runs it).
    await waitProjected(pool, [def.name], last, { timeoutMs: o.waitMs ?? 10_000, pollMs: 50 });
    const checkpoint = await readCheckpoint(pool, def.name);
    if (checkpoint < last) {
      // Its rows are not yet what the log says; comparing them would only repeat that.
      if (o.skipLagging) o.onLagging?.(def.name);
      else note(def.name, '(checkpoint)', 'position', checkpoint, last);
      continue;
    }
    const stored = await storedRows(pool, def, tenantId, sessionId, groupsOf(def, projected));
    const replayed = [...foldBatch(def, projected, []).after.values()].flat();
    const keyOf = (r: Row) => def.table.key.map((k) => String(r[k])).join('/');
    const storedByKey = new Map(stored.map((r) => [keyOf(r), r]));
    for (const r of replayed) {
      const key = keyOf(r);
      const s = storedByKey.get(key);
      storedByKey.delete(key);
      if (!s) note(def.name, key, '(row)', null, 'present');
      else for (const column of def.table.columns) compare(s[column], r[column], column, (field, sv, rv) => note(def.name, key, field, sv, rv));
    }
    for (const key of storedByKey.keys()) note(def.name, key, '(row)', 'present', null);
  }
  return diffs;
}

/**
 * The stored rows to compare: every row of the session where the read model is keyed by
 * session (so a row no event accounts for is found too), else the groups its events touch.
 */
async function storedRows(pool: Pool, def: ProjectionDef, tenantId: string, sessionId: string, groups: string[][]): Promise<Row[]> {
  const db = asTenant(pool, tenantId);
  if (!keyedBySession(def)) return loadGroups<Row>(db, def, groups);
  const { rows } = await db.query<{ r: Row }>(`SELECT row_to_json(t) AS r FROM ${def.table.table} t WHERE tenant_id = $1 AND session_id = $2`, [
    tenantId,
    sessionId,
  ]);
  return rows.map((x) => x.r);
}

/** Every session stream of a tenant (or of all tenants: system work `replay`), for `hub replay --all`. */
export async function sessionsOf(pool: Pool, tenantId?: string): Promise<Array<{ tenantId: string; sessionId: string }>> {
  const db = tenantId ? asTenant(pool, tenantId) : asSystem(pool, 'replay');
  const { rows } = await db.query<{ tenant_id: string; stream_id: string }>(
    `SELECT tenant_id, stream_id FROM streams WHERE stream_id LIKE 'session-%' ${tenantId ? 'AND tenant_id = $1' : ''} ORDER BY tenant_id, stream_id`,
    tenantId ? [tenantId] : [],
  );
  return rows.map((r) => ({ tenantId: r.tenant_id, sessionId: r.stream_id.slice('session-'.length) }));
}

/**
 * Compares a stored value with a replayed one, reporting leaf fields that differ. Values read back
 * from Postgres come as JSON (times as text, big integers as strings): equal times and equal
 * numbers in another spelling are the same value.
 */
function compare(stored: unknown, replayed: unknown, path: string, differ: (field: string, stored: unknown, replayed: unknown) => void): void {
  if (same(stored, replayed)) return;
  if (isObject(stored) && isObject(replayed)) {
    for (const k of new Set([...Object.keys(stored), ...Object.keys(replayed)])) compare(stored[k], replayed[k], path ? `${path}.${k}` : k, differ);
    return;
  }
  if (Array.isArray(stored) && Array.isArray(replayed) && stored.length === replayed.length) {
    stored.forEach((s, i) => compare(s, replayed[i], `${path}[${i}]`, differ));
    return;
  }
  differ(path || '(value)', stored, replayed);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  const time = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : NaN);
  if (!Number.isNaN(time(a)) && time(a) === time(b)) return true;
  const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : NaN);
  if (!Number.isNaN(num(a)) && num(a) === num(b)) return true;
  if (isObject(a) && isObject(b)) return Object.keys({ ...a, ...b }).every((k) => same(a[k], b[k]));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  return false;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}
